/** The one cut of text to a schema's limit lives in the protocol; engines and apps import it from here too. */
export { clipText } from '@orrery/protocol';

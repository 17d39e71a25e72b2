/** The SIGTERM drill, each step held while its process stops (test/support/sigterm-drill.ts). */
import { describeSigtermDrill } from '../support/sigterm-drill';

describeSigtermDrill('sigterm');

export const PASSAGE_STORE = Symbol('PASSAGE_STORE');
export const INGEST_STATE = Symbol('INGEST_STATE');

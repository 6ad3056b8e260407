import { fuzzShare } from './run.ts';

fuzzShare('ingest');

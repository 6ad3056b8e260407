import { fuzzShare } from './run.ts';

fuzzShare('pages');

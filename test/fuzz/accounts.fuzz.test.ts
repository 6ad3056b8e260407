import { fuzzShare } from './run.ts';

fuzzShare('accounts');

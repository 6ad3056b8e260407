import { fuzzShare } from './run.ts';

fuzzShare('other');

import { fuzzShare } from './run.ts';

fuzzShare('sends');

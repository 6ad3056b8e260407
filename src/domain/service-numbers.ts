/**
 * Sandbox lines are fictional NANP numbers, 555-0110..555-0199: the 555-01XX block is reserved
 * for fiction, so they never reach a real phone; 0100-0109 are left to the sandbox test numbers.
 */
const AREA_CODES = [201, 202, 206, 212, 213, 305, 312, 415, 503, 512, 617, 646, 702, 718, 805, 917] as const;
const FIRST_LINE = 10;
const LINES_PER_AREA = 90;

export const FICTIONAL_LINE_COUNT = AREA_CODES.length * LINES_PER_AREA;

/** The `index`-th fictional line, for index in [0, FICTIONAL_LINE_COUNT). */
export function fictionalLineNumber(index: number): string {
  const areaCode = AREA_CODES[Math.floor(index / LINES_PER_AREA) % AREA_CODES.length];
  const line = FIRST_LINE + (index % LINES_PER_AREA);
  return `+1${areaCode}55501${String(line).padStart(2, '0')}`;
}

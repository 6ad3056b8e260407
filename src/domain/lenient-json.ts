/** A text's JSON value, or undefined when it is not JSON: for answers and stored values read leniently, then checked by a schema. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

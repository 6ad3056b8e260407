/**
 * Runs a statement drizzle built once as an unnamed one, which PostgreSQL plans anew with each
 * call's values: a named statement may switch to a generic plan, and a range such as `id > $1`
 * then looks like a third of the table instead of the few newest rows.
 */
export function plannedPerCall<Prepared>(prepared: Prepared): Prepared {
  (prepared as { prepare: boolean }).prepare = false;
  return prepared;
}

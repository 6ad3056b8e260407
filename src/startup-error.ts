/**
 * Why the process cannot start, in one line that names what and where (the file, the address).
 * The CLI prints it after "textrelay: " and exits with code 1, without a stack trace.
 */
export class StartupError extends Error {}

type Method = (...args: unknown[]) => Promise<unknown>;
type Twin = (calls: unknown[][]) => Promise<unknown[]>;
type Call = { args: unknown[]; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/** The suffix of a method's set-based twin: `sendMany(calls)` answers what `send(...call)` would, for each call, in order. */
const TWIN_SUFFIX = 'Many';

const settledTurn = Promise.resolve();

/**
 * A method whose calls made in one turn (until every promise job that is ready has run, as
 * DataLoader does) become one call of `twin`, so the works of a batch, resumed together by one
 * answer, reach the database together with their next query.
 */
function merged(single: Method, twin: Twin): Method {
  let waiting: Call[] = [];
  function run(): void {
    const calls = waiting;
    waiting = [];
    if (calls.length === 1) {
      const [call] = calls as [Call];
      single(...call.args).then(call.resolve, call.reject);
      return;
    }
    twin(calls.map((call) => call.args)).then(
      (results) => {
        calls.forEach((call, index) => {
          call.resolve(results[index]);
        });
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  }
  return (...args) =>
    new Promise((resolve, reject) => {
      if (waiting.length === 0) void settledTurn.then(() => process.nextTick(run));
      waiting.push({ args, resolve, reject });
    });
}

/** `module` with each method that has a set-based twin merging its calls of one turn into one call of the twin. */
function mergingModule(module: Record<string, unknown>): Record<string, unknown> {
  const methods: Record<string, unknown> = {};
  return new Proxy(module, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (typeof name !== 'string' || typeof value !== 'function') return value;
      const twin = target[`${name}${TWIN_SUFFIX}`];
      if (typeof twin !== 'function') return value;
      methods[name] ??= merged(value.bind(target) as Method, twin.bind(target) as Twin);
      return methods[name];
    },
  });
}

/** The modules of a batch's transaction, each method with a twin merging its calls (see `merged`). */
export function mergingModules(modules: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const shared: Record<string, unknown> = {};
  for (const name of names) {
    Object.defineProperty(shared, name, {
      configurable: true,
      enumerable: true,
      get() {
        const module = mergingModule(modules[name] as Record<string, unknown>);
        Object.defineProperty(shared, name, { value: module, enumerable: true, writable: true });
        return module;
      },
    });
  }
  return shared;
}

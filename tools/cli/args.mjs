// A small argv parser: positionals, --flag, --key value, --key=value, -k N.
export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.exitCode = 2;
  }
}

// spec: { name: 'string' | 'number' | 'boolean' | 'list' }, aliases: { k: 'k' };
// a 'list' option may be given several times and collects its values.
export function parseArgs(argv, spec, aliases = {}) {
  const options = {};
  const positionals = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const m = /^--?([^=]+)(?:=(.*))?$/.exec(arg);
    if (!m || arg === '-') {
      positionals.push(arg);
      continue;
    }
    let name = aliases[m[1]] ?? m[1];
    let negated = false;
    if (!(name in spec) && name.startsWith('no-') && spec[name.slice(3)] === 'boolean') {
      name = name.slice(3);
      negated = true;
    }
    const type = spec[name];
    if (!type) throw new UsageError(`unknown option ${arg}`);
    if (type === 'boolean') {
      options[name] = !negated;
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    if (type === 'list') {
      (options[name] ??= []).push(value);
    } else if (type === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new UsageError(`${arg} expects a number, got '${value}'`);
      options[name] = n;
    } else {
      options[name] = value;
    }
  }
  return { options, positionals };
}

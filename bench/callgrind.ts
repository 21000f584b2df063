/**
 * Reading callgrind's dumps (`valgrind --tool=callgrind`, one event: Ir, instructions executed): how many
 * instructions went to V8's collector, to SQLite and to the rest. Used by bench/instructions.ts.
 *
 * ```ts
 * const { all, collector, sqlite } = sharesOf(readFileSync('callgrind.1234.1', 'utf8'));
 * ```
 */

/** What a dump's instructions were spent in: the collector, SQLite (with its binding), and the rest. */
export interface Shares {
  all: number;
  collector: number;
  sqlite: number;
}

/**
 * V8's collector, by the names of its functions: marking, sweeping, scavenging, evacuating and their visitors and
 * worklists. A heuristic (a function of the collector named otherwise counts as the rest), the same for both builds.
 */
const COLLECTOR =
  /v8::internal::(?:\w+::)*(?:\w*Marking\w*|MarkCompact\w*|Sweeper|\w*Scavenge\w*|\w*Evacuat\w*|Heap::|\w*Ephemeron\w*|RememberedSet|SlotSet|TypedSlots|\w*Worklist\w*|GCTracer)|heap::base::|cppgc::|ApplyEphemeronSemantics|ProcessStrongHeapObject/;

/**
 * Names as a dump writes them, compressed: `(id) name` the first time, `(id)` after (functions and object files
 * each have their own ids). Gives the name of either form.
 */
function compressedNames(): (value: string) => string {
  const names = new Map<string, string>();
  return value => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(value);
    if (!match) return value;
    if (match[2] !== undefined) names.set(match[1]!, match[2]);
    return names.get(match[1]!) ?? '';
  };
}

/**
 * The self cost of every function of a callgrind dump (one event, Ir), summed by share. In the format, `fn=` names
 * the function that the cost lines after it belong to (`(id) name` the first time, `(id)` after), `ob=` its object
 * file, and the line after a `calls=` line is the inclusive cost of that call, not the function's own.
 */
export function sharesOf(dump: string): Shares {
  const named = compressedNames();
  const object = compressedNames();
  const shares: Shares = { all: 0, collector: 0, sqlite: 0 };
  let share: keyof Shares | undefined;
  let ob = '';
  let inclusive = false;
  for (const line of dump.split('\n')) {
    if (line.startsWith('ob=')) ob = object(line.slice(3));
    else if (line.startsWith('cob=')) object(line.slice(4));
    else if (line.startsWith('cfn=')) named(line.slice(4));
    else if (line.startsWith('fn=')) {
      const name = named(line.slice(3));
      share = COLLECTOR.test(name) ? 'collector' : /better.sqlite3/.test(ob) ? 'sqlite' : undefined;
    } else if (line.startsWith('calls=')) inclusive = true;
    else if (/^[+\-*\d]/.test(line)) {
      if (inclusive) {
        inclusive = false;
        continue;
      }
      const cost = Number(line.split(' ')[1] ?? 0);
      shares.all += cost;
      if (share) shares[share] += cost;
    }
  }
  return shares;
}

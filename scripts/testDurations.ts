/**
 * A reporter for Node's test runner (scripts/test.ts gives it to each shard of the unit suite): a line of JSON for
 * each top-level test that ends, its file and duration, so that the next run can share the files out by their
 * time.
 */
interface TestEvent {
  type: string;
  data: { nesting?: number; file?: string; details?: { duration_ms?: number } };
}

export default async function* durations(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const { type, data } of source) {
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && data.file !== undefined) {
      yield `${JSON.stringify({ file: data.file, ms: data.details?.duration_ms ?? 0 })}\n`;
    }
  }
}

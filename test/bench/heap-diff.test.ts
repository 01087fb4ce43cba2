import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

const FIELDS = ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'];
const TYPES = ['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native'];

/** A heap snapshot of these nodes, in V8's layout: flat node fields, names in a string table. */
function snapshot(nodes: Array<{ type: string; name: string; size: number }>) {
  const strings: string[] = [];
  const flat: number[] = [];
  for (const [id, node] of nodes.entries()) {
    let name = strings.indexOf(node.name);
    if (name === -1) name = strings.push(node.name) - 1;
    flat.push(TYPES.indexOf(node.type), name, id + 1, node.size, 0, 0, 0);
  }
  return {
    snapshot: { meta: { node_fields: FIELDS, node_types: [TYPES, 'string', 'number'] }, node_count: nodes.length },
    nodes: flat,
    edges: [],
    strings,
  };
}

const socket = { type: 'object', name: 'Socket', size: 300 };
const text = (size: number) => ({ type: 'string', name: 'some text', size });

describe('bench/heap-diff.js', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-heap-diff-'));
    writeFileSync(join(dir, 'before.heapsnapshot'), JSON.stringify(snapshot([socket, text(50)])));
    // Two streams more: two sockets, two listeners and two strings of 40 bytes.
    const onData = { type: 'closure', name: 'onData', size: 64 };
    writeFileSync(
      join(dir, 'after.heapsnapshot'),
      JSON.stringify(snapshot([socket, socket, socket, onData, onData, text(50), text(40), text(40)])),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const diff = async (...args: string[]) =>
    (
      await run(process.execPath, [
        join(repo, 'bench/heap-diff.js'),
        join(dir, 'before.heapsnapshot'),
        join(dir, 'after.heapsnapshot'),
        ...args,
      ])
    ).stdout;

  it('prints what grew, per stream, by constructor and by kind, largest first', async () => {
    const lines = (await diff('2')).trim().split('\n');
    expect(lines[0]).toBe('live heap 0.0 MB -> 0.0 MB: 404 B per stream over 2');
    expect(lines[1]).toMatch(/^ +300\.0 B per stream +1\.00 objects per stream {2}Socket$/);
    expect(lines[2]).toMatch(/^ +64\.0 B per stream +1\.00 objects per stream {2}closure onData$/);
    expect(lines[3]).toMatch(/^ +40\.0 B per stream +1\.00 objects per stream {2}\(string\)$/);
    expect(lines).toHaveLength(4);
  });

  it('keeps to the top rows asked for, and says how to call it without files', async () => {
    expect((await diff('1', '1')).trim().split('\n')).toHaveLength(2);
    await expect(run(process.execPath, [join(repo, 'bench/heap-diff.js')])).rejects.toMatchObject({ code: 2 });
  });
});

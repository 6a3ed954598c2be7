// Runs a wasm32-wasi program under Node's WASI (Node 18 and later):
//   node --experimental-wasi-unstable-preview1 --no-warnings tests/builds/wasi_run.mjs \
//        [--dir GUEST=HOST]... PROGRAM.wasm [ARG]...
// (older Node releases want the flag for node:wasi; Node 20 ignores it.)
// Each --dir preopens the host folder HOST (made if missing) as GUEST inside
// the program (a WASI program reaches no file outside its preopened
// folders); the program sees this process's environment and arguments, and
// its exit status is this process's, set by process.exit at once.
//
// Node 20's WASI crashed (SIGSEGV in Node's own code, as the program
// returned) after a module's memory had grown during a long run: the test
// modules are linked with the memory they use from the start
// (-Wl,--initial-memory, mk/hosts.mk).
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';

const argv = process.argv.slice(2);
const preopens = {};
while (argv.length >= 2 && argv[0] === '--dir') {
  const spec = argv[1];
  const eq = spec.indexOf('=');
  if (eq <= 0) {
    console.error(`wasi_run: --dir wants GUEST=HOST, not ${spec}`);
    process.exit(2);
  }
  preopens[spec.slice(0, eq)] = spec.slice(eq + 1);
  mkdirSync(spec.slice(eq + 1), { recursive: true });
  argv.splice(0, 2);
}
if (argv.length < 1) {
  console.error('usage: wasi_run.mjs [--dir GUEST=HOST]... PROGRAM.wasm [ARG]...');
  process.exit(2);
}
const wasi = new WASI({
  version: 'preview1',
  args: argv,
  env: process.env,
  preopens,
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(argv[0]));
const imports = wasi.getImportObject ? wasi.getImportObject()
                                      : { wasi_snapshot_preview1: wasi.wasiImport };
const instance = await WebAssembly.instantiate(module, imports);
process.exit(wasi.start(instance));

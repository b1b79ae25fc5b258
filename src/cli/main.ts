import { runFloe } from './floe-cli.js';

// `floe …` (bin/floe.js starts this through tsx). A command that succeeded leaves the process
// to end by itself, so serve and optimizer keep running on their servers and timers.
void runFloe(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((code) => {
  if (code !== 0) process.exit(code);
});

// A language server that dies as soon as the client speaks: it prints a reason on stderr and
// exits with code 3 on the first bytes of input (the initialize request).
process.stdin.once('data', () => {
  process.stderr.write('boom: this server refuses to initialize\n');
  process.exit(3);
});

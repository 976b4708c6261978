// A server that writes invalid JSON-RPC to stdout and never answers.
setInterval(
  () => process.stdout.write('this is not json-rpc {{{\n{"jsonrpc":"1.0","bogus":true}\n'),
  50,
);

// A server that dies before answering initialize.
process.stderr.write('crash-on-start: configuration missing, exiting\n');
process.exit(3);

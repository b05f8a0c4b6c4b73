// An adapter: svc routes POST /v1/adapters/csv/<operation> here with the JSON body; the answer must be a JSON object.
globalThis.plugin = {
  adapter(operation, body) {
    if (operation !== 'stats') throw new Error('unknown operation ' + operation);
    if (typeof body.csv !== 'string') throw new Error('body.csv must be a string');
    const lines = body.csv.split('\n').filter((l) => l.length > 0);
    const header = lines.length > 0 ? lines[0].split(',') : [];
    return { columns: header, rows: Math.max(0, lines.length - 1) };
  },
};

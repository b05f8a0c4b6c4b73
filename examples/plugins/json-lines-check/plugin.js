// A verifier: returns { passed, reason }. A failed check stops the work unit before anything is stored.
globalThis.plugin = {
  verify(input) {
    if (input.text === null) return { passed: false, reason: 'not UTF-8' };
    const lines = input.text.split('\n');
    for (let i = 0; i < lines.length; i += 1) {
      if (lines[i].trim() === '') continue;
      try {
        JSON.parse(lines[i]);
      } catch (e) {
        return { passed: false, reason: 'line ' + (i + 1) + ' is not JSON' };
      }
    }
    return { passed: true, reason: 'every line is JSON' };
  },
};

// A semantic transform: svc hands it the object ({ bytes, text }) and stores what it returns.
// Under the exact_bytes contract svc refuses to plan it at all.
globalThis.plugin = {
  transform(input) {
    if (input.text === null) throw new Error('redact-emails handles UTF-8 text only');
    return input.text.replace(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, '[redacted]');
  },
};

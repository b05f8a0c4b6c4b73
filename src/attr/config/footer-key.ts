/**
 * `attr-service-config footer-key`: creates an Ed25519 footer signing key and
 * publishes its public key in the deployment trust store, so the service can
 * sign footers and relying parties can check them (docs/decisions/136).
 * The private key is written once (never overwritten) with mode 0600; the
 * trust store is validated before and after the key is added.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '../../core/hashing.ts';
import { FOOTER_SIGNING_ATTESTATION } from '../footer/footer-signature.ts';
import { TRUST_STORE_SCHEMA_ID, type TrustStore } from '../trust-store/trust-store-schema.ts';
import { validateTrustStoreDocument } from '../trust-store/validate-trust-store.ts';

export interface FooterKeyOptions {
  keyId: string;
  privateKey: string;
  trustStore: string;
  issuer: string;
}

export type FooterKeyResult =
  | { ok: true; summary: { key_id: string; private_key_path: string; trust_store_path: string; spki_sha256: string; config_snippet: { footer_signing: { key_id: string; private_key_path: string } } } }
  | { ok: false; problem: string; exitCode: 1 | 2 };

async function readExistingTrustStore(file: string): Promise<{ ok: true; store: TrustStore | null } | { ok: false; problem: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, store: null };
    return { ok: false, problem: `cannot read trust store ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { ok: false, problem: `trust store ${file} is not valid JSON` };
  }
  const report = validateTrustStoreDocument(document, file);
  if (!report.valid) return { ok: false, problem: `trust store ${file} does not validate; fix it first (attr-trust-store-validate --file ${file})` };
  return { ok: true, store: document as TrustStore };
}

export async function createFooterKey(o: FooterKeyOptions): Promise<FooterKeyResult> {
  if (o.keyId.trim() === '' || o.issuer.trim() === '') return { ok: false, problem: '--key-id and --issuer must not be empty', exitCode: 2 };
  const existing = await readExistingTrustStore(o.trustStore);
  if (!existing.ok) return { ok: false, problem: existing.problem, exitCode: 1 };
  if (existing.store?.keys.some((k) => k.key_id === o.keyId)) return { ok: false, problem: `trust store ${o.trustStore} already has key_id ${JSON.stringify(o.keyId)}`, exitCode: 1 };

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const store: TrustStore = {
    schema: TRUST_STORE_SCHEMA_ID,
    keys: [...(existing.store?.keys ?? []), { key_id: o.keyId, issuer: o.issuer, public_key_pem: publicPem, allowed_attestation_types: [FOOTER_SIGNING_ATTESTATION] }],
  };
  if (!validateTrustStoreDocument(store, o.trustStore).valid) return { ok: false, problem: 'the updated trust store would not validate', exitCode: 1 };

  try {
    await mkdir(path.dirname(path.resolve(o.privateKey)), { recursive: true });
    await writeFile(o.privateKey, privatePem, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, problem: `cannot write ${o.privateKey}: ${code === 'EEXIST' ? 'file exists (a signing key is never overwritten)' : (code ?? 'error')}`, exitCode: 1 };
  }
  // Write-then-rename: a crash leaves the old trust store or the new one, never half of one.
  await mkdir(path.dirname(path.resolve(o.trustStore)), { recursive: true });
  const tmp = `${o.trustStore}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o644 });
  await rename(tmp, o.trustStore);
  return {
    ok: true,
    summary: {
      key_id: o.keyId,
      private_key_path: path.resolve(o.privateKey),
      trust_store_path: path.resolve(o.trustStore),
      spki_sha256: sha256Hex(publicKey.export({ type: 'spki', format: 'der' })),
      config_snippet: { footer_signing: { key_id: o.keyId, private_key_path: path.resolve(o.privateKey) } },
    },
  };
}

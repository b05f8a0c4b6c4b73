/**
 * The plugin bundle format (docs/plugins.md, decision 148): one source for
 * the TypeBox schemas behind validation, the REST schema and the docs.
 *
 * A bundle is a manifest — id, version, kind, capabilities, entry and the
 * SHA-256 of every file — plus a detached Ed25519 signature over the
 * manifest's exact bytes, by a publisher in svc's trust list. Because the
 * manifest pins every file's digest, one signature covers the whole bundle.
 */
import { Type, type Static } from 'typebox';

export const PLUGIN_ID_PATTERN = '^[a-z][a-z0-9-]{0,31}\\.[a-z][a-z0-9-]{0,63}$';
export const PUBLISHER_PATTERN = '^[a-z][a-z0-9-]{0,31}$';
/** Relative file paths inside a bundle: no `..`, no leading slash, no backslashes. */
export const BUNDLE_PATH_PATTERN = '^(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$';
const SEMVER = '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?$';
const SHA256_HEX = '^[0-9a-f]{64}$';

/** One path segment: a plugin adapter's operations are `POST /v1/adapters/<name>/<operation>`. */
export const PLUGIN_ADAPTER_OPERATION_PATTERN = '^[a-z][a-z0-9_-]{0,63}$';

export const PLUGIN_KINDS = ['transform', 'verifier', 'adapter'] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

export const PLUGIN_CAPABILITIES = ['bytes.read', 'bytes.write', 'json.read', 'json.write'] as const;

export const PluginManifest = Type.Object(
  {
    schema: Type.Literal('svc.plugin/v1'),
    /** `publisher.name`; the publisher part must equal `publisher`. */
    id: Type.String({ pattern: PLUGIN_ID_PATTERN }),
    version: Type.String({ pattern: SEMVER, maxLength: 64 }),
    kind: Type.Union(PLUGIN_KINDS.map((k) => Type.Literal(k))),
    publisher: Type.String({ pattern: PUBLISHER_PATTERN }),
    summary: Type.String({ minLength: 1, maxLength: 280 }),
    /** What the plugin's entry may be handed and return; svc passes nothing else. */
    capabilities: Type.Array(Type.Union(PLUGIN_CAPABILITIES.map((c) => Type.Literal(c))), { uniqueItems: true, maxItems: 4 }),
    /** The JavaScript file evaluated in the sandbox; must be listed in `files`. */
    entry: Type.String({ pattern: BUNDLE_PATH_PATTERN, maxLength: 256 }),
    /** Transforms only: true when the output is not byte-identical to the input (denied under `exact_bytes`). */
    semantic: Type.Optional(Type.Boolean()),
    /** Adapters only: the adapter name and family it registers and its operations. */
    adapter: Type.Optional(
      Type.Object(
        {
          name: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }),
          family: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }),
          operations: Type.Array(Type.String({ pattern: PLUGIN_ADAPTER_OPERATION_PATTERN }), { minItems: 1, maxItems: 32, uniqueItems: true }),
        },
        { additionalProperties: false },
      ),
    ),
    /** Per-call limits the plugin asks for; svc caps them at `plugins.max_timeout_ms` / `plugins.max_memory_bytes`. */
    limits: Type.Optional(
      Type.Object(
        {
          timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
          memory_bytes: Type.Optional(Type.Integer({ minimum: 1_048_576, maximum: 1_073_741_824 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Every file of the bundle and its SHA-256 (hex). The bundle must hold exactly these files. */
    files: Type.Record(Type.String({ pattern: BUNDLE_PATH_PATTERN, maxLength: 256 }), Type.String({ pattern: SHA256_HEX }), { minProperties: 1, maxProperties: 64 }),
  },
  { additionalProperties: false },
);
export type PluginManifest = Static<typeof PluginManifest>;

export const PluginSignature = Type.Object(
  {
    algorithm: Type.Literal('ed25519'),
    publisher: Type.String({ pattern: PUBLISHER_PATTERN }),
    /** base64 of the 64-byte Ed25519 signature over the UTF-8 bytes of `manifest_json`. */
    value: Type.String({ pattern: '^[A-Za-z0-9+/]+={0,2}$', maxLength: 128 }),
  },
  { additionalProperties: false },
);
export type PluginSignature = Static<typeof PluginSignature>;

/** The install request: the manifest text exactly as signed, its signature, and every file (base64). */
export const PluginBundle = Type.Object(
  {
    manifest_json: Type.String({ minLength: 2, maxLength: 65_536 }),
    /** Absent for an unsigned bundle (always refused; the refusal is audited). */
    signature: Type.Optional(PluginSignature),
    files: Type.Record(Type.String({ pattern: BUNDLE_PATH_PATTERN, maxLength: 256 }), Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' }), { minProperties: 1, maxProperties: 64 }),
  },
  { additionalProperties: false },
);
export type PluginBundle = Static<typeof PluginBundle>;

export const PluginView = Type.Object({
  id: Type.String(),
  version: Type.String(),
  kind: Type.String(),
  publisher: Type.String(),
  summary: Type.String(),
  capabilities: Type.Array(Type.String()),
  semantic: Type.Boolean(),
  adapter: Type.Union([Type.Null(), Type.Object({ name: Type.String(), family: Type.String(), operations: Type.Array(Type.String()) })]),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  /** False when the rollback switch `disable_plugin` names this plugin (it is then unavailable whatever its status). */
  switched_off: Type.Boolean(),
  bundle_sha256: Type.String(),
  installed_at: Type.String(),
  installed_by: Type.String(),
  updated_at: Type.String(),
  updated_by: Type.String(),
});
export type PluginView = Static<typeof PluginView>;

export const PluginIdParams = Type.Object({ id: Type.String({ pattern: PLUGIN_ID_PATTERN }) }, { additionalProperties: false });

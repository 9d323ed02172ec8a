// `registerTool` and `registerResource` with the official TypeScript SDK's signatures, so that helpers written
// against its `McpServer` (ext-apps' `registerAppTool`, `registerAppResource`) register on a mcpwire `Server`.
// The callbacks get mcpwire's `ServerContext`: what they use of the official one beyond the arguments is not there.
// At run time the helpers take a Server as they find it; their TypeScript parameter names the official McpServer
// (its handles' internals among it), so a typed caller passes `server as never`.
import type { Icon, Meta, ReadResourceResult, ToolAnnotations } from '../protocol/types.js';
import type { ServerContext } from './context.js';
import type { InputRequired } from './input-required.js';
import type { ResourceDef } from './resources.js';
import type {
  SchemaInput,
  StandardJsonSchemaOptions,
  StandardSchemaV1,
  StandardSchemaV1Issue,
  StandardSchemaV1Result,
} from './schema.js';
import type { ResourceHandle, Server, ToolHandle } from './server.js';
import type { ToolHandler, ToolResult } from './tools.js';

/** A record of Standard Schemas, one per argument: the official SDK's "raw shape" (`{ city: z.string() }`). */
export type RawShape = Record<string, StandardSchemaV1>;

/** What the official `registerTool` takes besides the name. */
export interface SdkToolConfig {
  title?: string;
  description?: string;
  inputSchema?: StandardSchemaV1 | RawShape;
  outputSchema?: StandardSchemaV1 | RawShape;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

type Answer = ToolResult | InputRequired | Promise<ToolResult | InputRequired>;
/** With an `inputSchema`, `(args, ctx)`; without, `(ctx)`: as the official SDK calls them. */
export type SdkToolCallback = ((args: any, ctx: ServerContext) => Answer) | ((ctx: ServerContext) => Answer);

/** What the official `registerResource` takes besides the name and URI. */
export type SdkResourceConfig = Omit<ResourceDef, 'uri' | 'name'>;
export type SdkReadCallback = (
  uri: URL,
  ctx: ServerContext,
) => ReadResourceResult | InputRequired | Promise<ReadResourceResult | InputRequired>;

/** `server.registerTool(name, config, cb)`: `server.tool` under the official signature. */
export function registerSdkTool(
  server: Server,
  name: string,
  config: SdkToolConfig,
  cb: SdkToolCallback,
): ToolHandle {
  const { inputSchema, outputSchema, _meta, ...rest } = config;
  const handler: ToolHandler<SchemaInput> =
    inputSchema === undefined
      ? (_args, ctx) => (cb as (ctx: ServerContext) => Answer)(ctx)
      : (args, ctx) => (cb as (args: unknown, ctx: ServerContext) => Answer)(args, ctx);
  return server.tool(
    {
      name,
      ...rest,
      inputSchema: inputSchema === undefined ? undefined : schemaOf(inputSchema, `${name}'s inputSchema`),
      outputSchema: outputSchema === undefined ? undefined : schemaOf(outputSchema, `${name}'s outputSchema`),
      _meta: _meta as Meta | undefined,
    },
    handler,
  );
}

/** `server.registerResource(name, uri, config, read)`: `server.resource` under the official signature. */
export function registerSdkResource(
  server: Server,
  name: string,
  uri: string,
  config: SdkResourceConfig,
  read: SdkReadCallback,
): ResourceHandle {
  if (typeof uri !== 'string') {
    throw new TypeError(
      `registerResource("${name}") takes the resource's URI; register a template with server.resourceTemplate`,
    );
  }
  return server.resource({ ...config, uri, name }, (read_uri, ctx) => read(new URL(read_uri), ctx));
}

const isStandard = (value: unknown): value is StandardSchemaV1 =>
  typeof value === 'object' && value !== null && '~standard' in value;

/** A Standard Schema as it is, a raw shape as the object schema of its fields; anything else refused. */
function schemaOf(input: StandardSchemaV1 | RawShape, what: string): StandardSchemaV1 {
  if (isStandard(input)) return input;
  const fields = Object.entries(input ?? {});
  if (typeof input !== 'object' || input === null || !fields.every(([, field]) => isStandard(field))) {
    throw new TypeError(
      `${what} is a Standard Schema (z.object({…})) or a record of them ({ city: z.string() })`,
    );
  }
  return objectOf(input);
}

type Outcome = StandardSchemaV1Result<unknown>;

/**
 * The object schema of a raw shape: each field checked by its own schema (a field whose schema accepts
 * `undefined` is optional), other keys kept; its JSON Schema put together from the fields' own.
 */
function objectOf(shape: RawShape): StandardSchemaV1 {
  const fields = Object.entries(shape);
  const optional = new Set(
    fields
      .filter(([, field]) => {
        const outcome = field['~standard'].validate(undefined);
        return !(outcome instanceof Promise) && outcome.issues === undefined;
      })
      .map(([key]) => key),
  );
  const jsonSchemaOf = (kind: 'input' | 'output') => (options: StandardJsonSchemaOptions) => {
    const properties: Record<string, unknown> = {};
    for (const [key, field] of fields) {
      const converter = field['~standard'].jsonSchema;
      if (typeof converter?.[kind] !== 'function') {
        throw new TypeError(`the schema of "${key}" cannot give its JSON Schema (~standard.jsonSchema)`);
      }
      const { $schema: _dialect, ...schema } = converter[kind](options);
      properties[key] = schema;
    }
    const required = fields.map(([key]) => key).filter((key) => !optional.has(key));
    return required.length === 0 ? { type: 'object', properties } : { type: 'object', properties, required };
  };
  const settle = (value: Record<string, unknown>, outcomes: Outcome[]): Outcome => {
    const issues: StandardSchemaV1Issue[] = [];
    const output: Record<string, unknown> = { ...value };
    fields.forEach(([key], i) => {
      const outcome = outcomes[i]!;
      if (outcome.issues !== undefined) {
        for (const issue of outcome.issues) issues.push({ ...issue, path: [key, ...(issue.path ?? [])] });
      } else if (outcome.value !== undefined || key in value) output[key] = outcome.value;
    });
    return issues.length > 0 ? { issues } : { value: output };
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'mcpwire-raw-shape',
      validate(value) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          return { issues: [{ message: 'expected an object of arguments' }] };
        }
        const record = value as Record<string, unknown>;
        const outcomes = fields.map(([key, field]) => field['~standard'].validate(record[key]));
        return outcomes.some((outcome) => outcome instanceof Promise)
          ? Promise.all(outcomes).then((settled) => settle(record, settled))
          : settle(record, outcomes as Outcome[]);
      },
      jsonSchema: { input: jsonSchemaOf('input'), output: jsonSchemaOf('output') },
    },
  };
}

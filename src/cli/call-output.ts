import { viewOf } from '../extensions/apps/views.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import {
  type CallToolResult,
  type CompleteResult,
  type ContentBlock,
  type GetPromptResult,
  type LoggingMessageNotificationParams,
  Method,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '../protocol/types.js';

// How `mcpwire call` shows results to a person. Each function returns whole lines, ending in '\n'.

/** Each tool: its name and description, then its arguments, required ones first. */
export function formatTools(tools: readonly Tool[]): string {
  if (tools.length === 0) return 'No tools\n';
  let out = '';
  for (const tool of tools) {
    out += heading(tool.name, tool.description ?? tool.title);
    const properties = tool.inputSchema.properties ?? {};
    const required = new Set(tool.inputSchema.required ?? []);
    const describeArgs = (names: string[]) =>
      names.map((name) => `${name}${schemaType(properties[name])}`).join(', ');
    const mandatory = [...required];
    const optional = Object.keys(properties).filter((name) => !required.has(name));
    if (mandatory.length > 0) out += `  required: ${describeArgs(mandatory)}\n`;
    if (optional.length > 0) out += `  optional: ${describeArgs(optional)}\n`;
    const view = viewOf(tool);
    if (view !== undefined) {
      const who = view.visibility.includes('model') ? '' : ' (for the view only, not the model)';
      out += `  view: ${view.uri}${who}\n`;
    }
  }
  return out;
}

export function formatResources(resources: readonly Resource[]): string {
  if (resources.length === 0) return 'No resources\n';
  return resources
    .map((r) => `${r.uri}  ${label(r.name, r.title)}${suffix(r.description)}${mime(r.mimeType)}\n`)
    .join('');
}

export function formatTemplates(templates: readonly ResourceTemplate[]): string {
  if (templates.length === 0) return 'No resource templates\n';
  return templates
    .map((t) => `${t.uriTemplate}  ${label(t.name, t.title)}${suffix(t.description)}${mime(t.mimeType)}\n`)
    .join('');
}

/** Each prompt: its name and description, then its arguments (`*` marks the required ones). */
export function formatPrompts(prompts: readonly Prompt[]): string {
  if (prompts.length === 0) return 'No prompts\n';
  let out = '';
  for (const prompt of prompts) {
    out += heading(prompt.name, prompt.description ?? prompt.title);
    const args = prompt.arguments ?? [];
    if (args.length > 0) {
      out += `  arguments: ${args.map((a) => `${a.name}${a.required ? '*' : ''}${a.description ? ` (${a.description})` : ''}`).join(', ')}\n`;
    }
  }
  return out;
}

/** The result's content blocks, then its structuredContent as JSON. */
export function formatToolResult(result: CallToolResult): string {
  let out = (result.content ?? []).map(formatContent).join('');
  if (result.structuredContent !== undefined) {
    out += `structuredContent: ${JSON.stringify(result.structuredContent, null, 2)}\n`;
  }
  return out === '' ? '(no content)\n' : out;
}

export function formatReadResult(result: ReadResourceResult): string {
  const contents = result.contents ?? [];
  if (contents.length === 0) return '(no contents)\n';
  return contents
    .map((c) => {
      const head = contents.length > 1 ? `--- ${c.uri}${mime(c.mimeType)}\n` : '';
      if ('text' in c) return head + lines(c.text);
      return `${head}[blob: ${c.mimeType ?? 'unknown type'}, ${base64Bytes(c.blob)} bytes]\n`;
    })
    .join('');
}

/** The prompt's description, then each message as `role: content`. */
export function formatPromptResult(result: GetPromptResult): string {
  let out = result.description === undefined ? '' : `${result.description}\n\n`;
  for (const message of result.messages ?? []) out += `${message.role}: ${formatContent(message.content)}`;
  return out;
}

/** The suggested values, one a line, and how many more the server has when it says so. */
export function formatCompletion(result: CompleteResult): string {
  const { values, total, hasMore } = result.completion;
  let out = values.length === 0 ? 'No suggestions\n' : values.map((v) => `${v}\n`).join('');
  if (total !== undefined && total > values.length) out += `(${total - values.length} more)\n`;
  else if (hasMore === true) out += '(more)\n';
  return out;
}

/** One content block: text as it is, binary content as `[image: mime, N bytes]`. */
export function formatContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return lines(block.text);
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]\n`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]\n`;
    case 'resource': {
      const r = block.resource;
      if ('text' in r) return `[resource: ${r.uri}]\n${lines(r.text)}`;
      return `[resource: ${r.uri}, ${r.mimeType ?? 'unknown type'}, ${base64Bytes(r.blob)} bytes]\n`;
    }
    default:
      return `[${(block as { type: string }).type}]\n`;
  }
}

/** A log message from the server, for stderr: `[level] logger: data`. */
export function formatLog(params: LoggingMessageNotificationParams): string {
  const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
  return `[${params.level}]${params.logger ? ` ${params.logger}:` : ''} ${data}\n`;
}

/** The list changes a notification method announces, by the word shown for them. */
const LIST_CHANGED: Record<string, string> = {
  [Method.ToolListChanged]: 'tools',
  [Method.PromptListChanged]: 'prompts',
  [Method.ResourceListChanged]: 'resources',
};

/**
 * One notification from the server, as `listen` shows it: `tools changed`, `resource updated: URI`, what
 * the server agreed to send, a log message; any other as its method and params. `_meta` is left out: it
 * ties the notification to its stream, which the person does not need.
 */
export function formatNotification(notification: {
  method: string;
  params?: Record<string, unknown>;
}): string {
  const { method } = notification;
  const { _meta, ...params } = notification.params ?? {};
  if (LIST_CHANGED[method] !== undefined) return `${LIST_CHANGED[method]} changed\n`;
  if (method === Method.ResourceUpdated && typeof params.uri === 'string') {
    return `resource updated: ${params.uri}\n`;
  }
  if (method === Method.SubscriptionsAcknowledged && typeof params.notifications === 'object') {
    return formatAcknowledged(params.notifications as SubscriptionFilter);
  }
  if (method === Method.LoggingMessage && typeof params.level === 'string') {
    return formatLog(params as unknown as LoggingMessageNotificationParams);
  }
  return Object.keys(params).length === 0 ? `${method}\n` : `${method} ${JSON.stringify(params)}\n`;
}

/** What a listen stream will carry: the filter the server honoured. */
function formatAcknowledged(filter: SubscriptionFilter): string {
  const kinds = [
    ...(filter.toolsListChanged ? ['tools changes'] : []),
    ...(filter.promptsListChanged ? ['prompts changes'] : []),
    ...(filter.resourcesListChanged ? ['resources changes'] : []),
    ...(filter.resourceSubscriptions ?? []).map((uri) => `updates of ${uri}`),
  ];
  return kinds.length === 0
    ? 'listening for nothing: the server takes none of what was asked\n'
    : `listening for ${kinds.join(', ')}\n`;
}

function heading(name: string, description: string | undefined): string {
  return description ? `${name}: ${description}\n` : `${name}\n`;
}

function label(name: string, title: string | undefined): string {
  return title !== undefined && title !== name ? `${name} (${title})` : name;
}

function suffix(description: string | undefined): string {
  return description ? ` — ${description}` : '';
}

function mime(type: string | undefined): string {
  return type ? ` [${type}]` : '';
}

function schemaType(schema: { type?: unknown } | undefined): string {
  const type = schema?.type;
  if (typeof type === 'string') return ` (${type})`;
  return Array.isArray(type) ? ` (${type.join(' | ')})` : '';
}

function lines(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** The size of base64 data once decoded, without decoding it. */
function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}

import type { SubscriptionFilter } from './modern-types.js';
import type { ServerCapabilities } from './types.js';

/**
 * The part of `filter` a server with `capabilities` can honour: list changes of the lists it announces as
 * changing, resource updates when it announces `subscribe`, and task states when it runs tasks. A server's listen ack sends it back (and its
 * stream carries nothing else); a client narrows a listen over a legacy session with it.
 */
export function honouredFilter(
  filter: SubscriptionFilter,
  capabilities: ServerCapabilities,
): SubscriptionFilter {
  const honoured: SubscriptionFilter = {};
  if (filter.toolsListChanged === true && capabilities.tools?.listChanged) honoured.toolsListChanged = true;
  if (filter.promptsListChanged === true && capabilities.prompts?.listChanged)
    honoured.promptsListChanged = true;
  if (filter.resourcesListChanged === true && capabilities.resources?.listChanged) {
    honoured.resourcesListChanged = true;
  }
  const uris = filter.resourceSubscriptions;
  if (uris !== undefined && uris.length > 0 && capabilities.resources?.subscribe) {
    honoured.resourceSubscriptions = [...new Set(uris)];
  }
  const taskIds = filter.taskIds;
  if (taskIds !== undefined && taskIds.length > 0 && capabilities.tasks)
    honoured.taskIds = [...new Set(taskIds)];
  return honoured;
}

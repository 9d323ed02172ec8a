import type { SubscriptionFilter } from './modern-types.js';
import { isObject, optionalBoolean, optionalStringArray, type Problem } from './param-checks.js';
import { declaresTasks } from './tasks.js';
import type { ServerCapabilities } from './types.js';

/**
 * Where `filter` is not a subscription filter (`.resourceSubscriptions must be …`), or undefined when it is: what a
 * client's `subscriptions/listen` asks for, and what the server's acknowledgement says it honours.
 */
export function filterProblem(filter: unknown): Problem {
  if (!isObject(filter)) return ' must be an object (the subscription filter)';
  return (
    optionalBoolean(filter, 'toolsListChanged') ??
    optionalBoolean(filter, 'promptsListChanged') ??
    optionalBoolean(filter, 'resourcesListChanged') ??
    optionalStringArray(filter, 'resourceSubscriptions') ??
    optionalStringArray(filter, 'taskIds')
  );
}

/**
 * The part of `filter` a server with `capabilities` can honour: list changes of the lists it announces as
 * changing, resource updates when it announces `subscribe`, and task states when it runs tasks (the 2025 `tasks`
 * capability, or the Tasks extension a 2026 server/discover names). A server's listen ack sends it back (and its
 * stream carries nothing else); a client narrows a listen with it before it sends one.
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
  if (taskIds !== undefined && taskIds.length > 0 && (capabilities.tasks || declaresTasks(capabilities))) {
    honoured.taskIds = [...new Set(taskIds)];
  }
  return honoured;
}

import type { Task } from '../client/task-types.js';
import type { ProgressBar } from './progress-bar.js';

/** A task's state as `mcpwire call` shows it: `task input required: Waiting for your name`. */
export function taskLine(task: Task): string {
  const message = task.statusMessage ? `: ${task.statusMessage}` : '';
  return `task ${task.status.replace('_', ' ')}${message}`;
}

/**
 * What `mcpwire call` does with each state of a task it follows (the client calls it on every change): the
 * first time, says the task's id and the command that picks it up again, since a task outlives this run when
 * the connection or the process is lost; then shows the status on the progress line.
 */
export function taskReporter(
  bar: ProgressBar,
  resumeCommand: (taskId: string) => string,
): (task: Task) => void {
  let announced: string | undefined;
  return (task) => {
    if (announced !== task.taskId) {
      announced = task.taskId;
      bar.print(`mcpwire: task ${task.taskId}; to follow it again: ${resumeCommand(task.taskId)}\n`);
    }
    bar.status(taskLine(task));
  };
}

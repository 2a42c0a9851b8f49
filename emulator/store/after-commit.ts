/**
 * Runs a transaction's after-commit steps, each whatever the others did: the change is committed
 * whatever a follower did with it, so a defect there is told (a process warning), never thrown at
 * the caller whose write succeeded. Shared by the adapters' transactions.
 */
export function runAfterCommit(hooks: readonly (() => void)[] | null): void {
  if (!hooks) return;
  for (const hook of hooks) {
    try {
      hook();
    } catch (error) {
      process.emitWarning(`an after-commit step failed: ${(error as Error).message}`);
    }
  }
}

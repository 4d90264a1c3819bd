/** Options every read and write takes. */
export interface OperationOptions {
  /** Cancels the operation; chunks already written stay written. */
  signal?: AbortSignal;
  /** Called after each chunk with the number done and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Worker threads to use; 0 runs inline on this thread. This release always runs inline: the
   * worker-pool release adds executors behind the same option.
   */
  threads?: number;
}

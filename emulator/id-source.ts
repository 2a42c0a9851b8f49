import { cryptoRandom, type RandomSource } from '../src/contract/random.js';

/**
 * DESIGN, Storage and the team sandbox: ids never repeat across the processes or restarts of one
 * sandbox, `--seed` included. Issue 24: with `--seed N --clock manual` on one database every process
 * started the same random stream at the same frozen instant, so the k-th id of one process was the
 * k-th id of another (a 500 for a unique violation, then a store of the other environment's id).
 *
 * The ids' random bytes: the seeded stream's, as they always were (so the simulator's choices, drawn
 * from the same stream, stay reproducible); once `salt()` is called, each id's bytes are also mixed
 * with the cryptographic generator's. The start that makes a new sandbox (an empty memory, folder or
 * database) leaves them unsalted, so a single-process test suite on `--seed` makes the same ids run
 * after run; any other start (a second process, a restart) salts them, and its ids are new.
 */
export class IdSource implements RandomSource {
  private mixed: RandomSource | null = null;

  constructor(private readonly stream: RandomSource) {}

  /** From now on every id also takes bytes from `salt` (the cryptographic generator). */
  salt(salt: RandomSource = cryptoRandom): void {
    this.mixed = salt;
  }

  get salted(): boolean {
    return this.mixed !== null;
  }

  bytes(n: number): Uint8Array {
    const drawn = this.stream.bytes(n);
    if (!this.mixed) return drawn;
    const extra = this.mixed.bytes(n);
    const out = Uint8Array.from(drawn);
    for (let i = 0; i < n; i++) out[i] = out[i]! ^ extra[i]!;
    return out;
  }

  float(): number {
    return this.stream.float();
  }
}

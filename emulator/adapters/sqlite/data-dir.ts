import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';

/**
 * The data folder and the database files hold webhook signing secrets and credential digests: the
 * folder is 0700 and every file 0600, whatever the umask. SQLite gives the -wal and -shm files the
 * mode of the database file, which is created here (0600) before SQLite opens it.
 */
export function secureDataDir(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // the umask may have taken bits off, never added: set it exactly
    return;
  }
  // An existing folder is tightened only when it holds nothing but the emulator's own files:
  // `--data .` must not lock others out of a project folder.
  if (readdirSync(dir).every((name) => OWN_FILES.test(name))) chmodSync(dir, 0o700);
}

// The emulator's files, the temp files of its atomic writes (a new database's among them: open.ts), and
// a restore's staging folder.
const OWN_FILES = /^((live|test|sandbox)\.sqlite(-wal|-shm|-journal)?|seed-credentials\.json|emulator\.pid|emulator\.log|clock\.json|\.(clock|seed-credentials)\.json\.[0-9a-f]{12}\.tmp|\.(live|test|sandbox)\.sqlite\.[0-9a-f]{12}\.tmp|\.restore-(staging|swap))$/;

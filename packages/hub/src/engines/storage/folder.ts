import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { constants } from 'node:fs';
import { chmod, copyFile, link, open, opendir, rename, rm, stat, symlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { makeDirectory, makeDirectorySync, writeFileAtomic } from '@data/core';
import {
  PartialWriteError,
  type ByteRange,
  type PartialFiles,
  type Storage,
  type StoredInfo,
} from './types.js';

/** Partial files made whole by a write alone whose stamps are kept, the newest. */
const KEPT_STAMPS = 1024;

/** The embedded default: every key a file under one folder, written by rename or link. */
export class FolderStorage implements Storage {
  constructor(readonly root: string) {
    for (const folder of ['objects', 'packages']) makeDirectorySync(join(root, folder));
  }

  get location(): string {
    return this.root;
  }

  /** Writes going on into each partial file, and the files being taken: see takePartial. */
  private readonly writers = new Map<string, number>();
  private readonly taking = new Set<string>();
  /**
   * The stamp of the last write begun into each partial file, from one count for all: kept
   * past the writes only for a file one write alone made whole (its digest may stand for it),
   * and for the newest of those only. A stamp missing is safe: the file is read again.
   */
  private readonly lastWrite = new Map<string, number>();
  private stamps = 0;

  readonly partial: PartialFiles = {
    size: async (key) => (await this.stat(key))?.size ?? 0,
    write: (key, offset, body, limit) => this.writeAt(key, offset, body, limit),
    take: (key) => this.takePartial(key),
  };

  /**
   * Writes at absolute positions, so that two writers of the same upload (its owner's two
   * publications) write the same bytes to the same place; each chunk is on disk before the
   * next is read, so a body that breaks off leaves every byte that came.
   */
  private async writeAt(
    key: string,
    offset: number,
    body: AsyncIterable<Buffer>,
    limit: number,
  ): Promise<{ held: number; stamp: number; alone: boolean }> {
    const path = this.pathOf(key);
    if (this.taking.has(key)) throw new PartialWriteError('the upload is being checked', 409);
    const others = this.writers.get(key) ?? 0;
    this.writers.set(key, others + 1);
    const stamp = ++this.stamps;
    this.stampWrite(key, stamp);
    let whole = false;
    try {
      await makeDirectory(dirname(path));
      const held = await this.writeInto(path, offset, body, limit);
      const alone = others === 0 && this.lastWrite.get(key) === stamp;
      whole = alone && held === limit;
      return { held, stamp, alone };
    } finally {
      const left = (this.writers.get(key) ?? 1) - 1;
      if (left > 0) this.writers.set(key, left);
      else {
        this.writers.delete(key);
        if (!whole) this.lastWrite.delete(key);
      }
    }
  }

  private stampWrite(key: string, stamp: number): void {
    this.lastWrite.delete(key);
    this.lastWrite.set(key, stamp);
    if (this.lastWrite.size > KEPT_STAMPS)
      for (const oldest of this.lastWrite.keys()) {
        if (!this.writers.has(oldest)) {
          this.lastWrite.delete(oldest);
          break;
        }
      }
  }

  private async writeInto(
    path: string,
    offset: number,
    body: AsyncIterable<Buffer>,
    limit: number,
  ): Promise<number> {
    const handle = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    try {
      const held = (await handle.stat()).size;
      if (offset > held)
        throw new PartialWriteError(
          `the upload holds ${String(held)} bytes: it goes on from there, not from ${String(offset)}`,
          409,
        );
      let position = offset;
      for await (const chunk of body) {
        if (position + chunk.length > limit)
          throw new PartialWriteError('more bytes than the declared length', 400);
        await handle.write(chunk, 0, chunk.length, position);
        position += chunk.length;
      }
      return Math.max(held, position);
    } finally {
      await handle.close();
    }
  }

  /**
   * A rename, once no write is going on into the file, and with none let in until it is
   * done: no one but the caller may change the bytes it checks and stores (a folder is one
   * hub process's own).
   */
  private async takePartial(key: string): Promise<{ path: string; stamp: number } | undefined> {
    if (this.writers.has(key) || this.taking.has(key))
      throw new PartialWriteError('the upload is still being written', 409);
    this.taking.add(key);
    const stamp = this.lastWrite.get(key) ?? 0;
    this.lastWrite.delete(key);
    const taken = `${this.pathOf(key)}.taken-${randomBytes(6).toString('hex')}`;
    try {
      await rename(this.pathOf(key), taken);
      return { path: taken, stamp };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    } finally {
      this.taking.delete(key);
    }
  }

  /**
   * The file of a key. Keys are the hub's own, made of checked parts; one that would leave
   * the folder anyway is refused here too, the last line before the file system.
   */
  pathOf(key: string): string {
    const segments = key.split('/').filter(Boolean);
    if (segments.some((segment) => segment === '..' || segment === '.' || segment.includes('\\')))
      throw new Error(`storage key "${key}" leaves the folder`);
    return join(this.root, ...segments);
  }

  async stat(key: string): Promise<StoredInfo | undefined> {
    const info = await stat(this.pathOf(key)).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    return {
      size: info.size,
      modified: info.mtime,
      version: `${String(info.ino)}:${String(info.size)}:${String(info.mtimeMs)}:${String(info.ctimeMs)}`,
    };
  }

  read(key: string, range?: ByteRange): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key), { highWaterMark: 1 << 20, ...range });
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', reject);
    });
  }

  /** Links the verified file in place, or copies it first when it is on another disk. */
  async putFile(key: string, file: string): Promise<void> {
    const target = this.pathOf(key);
    await makeDirectory(dirname(target));
    try {
      await link(file, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return;
      if (code !== 'EXDEV') throw error;
      const near = `${target}.${randomBytes(6).toString('hex')}.part`;
      try {
        await copyFile(file, near);
        await link(near, target).catch((linkError: unknown) => {
          if ((linkError as NodeJS.ErrnoException).code !== 'EEXIST') throw linkError;
        });
      } finally {
        await rm(near, { force: true });
      }
    }
    await chmod(target, 0o444);
  }

  async putText(key: string, text: string): Promise<void> {
    const target = this.pathOf(key);
    await makeDirectory(dirname(target));
    await writeFileAtomic(target, text, { mode: 0o444 });
  }

  async copy(from: string, to: string): Promise<void> {
    await this.putFile(to, this.pathOf(from));
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    const start = this.pathOf(prefix);
    const folders = [start];
    for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
      const entries = await opendir(folder).catch(() => undefined);
      if (!entries) continue;
      for await (const entry of entries) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) folders.push(path);
        else if (entry.isFile() && !entry.name.endsWith('.part')) {
          const info = await stat(path).catch(() => undefined);
          if (info) yield { key: relative(this.root, path).split(sep).join('/'), size: info.size };
        }
      }
    }
  }

  /** A link: validation only reads, and nothing is ever written through it. */
  async materialize(key: string, target: string): Promise<void> {
    await symlink(this.pathOf(key), target);
  }

  close(): void {}
}

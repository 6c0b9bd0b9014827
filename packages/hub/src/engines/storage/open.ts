import { fileURLToPath } from 'node:url';
import { FolderStorage } from './folder.js';
import { StorageAddressError, type Storage } from './types.js';

export const isS3Url = (address: string): boolean => /^s3:\/\//i.test(address);

/** The storage an address names: s3://… a bucket, file://… or a path a folder. */
export async function openStorage(address: string): Promise<Storage> {
  if (isS3Url(address)) {
    const { S3Storage } = await import('./s3.js');
    return S3Storage.open(address);
  }
  if (/^file:/i.test(address)) return new FolderStorage(folderOfFileUrl(address));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(address))
    throw new StorageAddressError(
      `unknown storage "${address.split('?')[0] ?? ''}": give a folder, file://… or s3://…`,
    );
  return new FolderStorage(address);
}

function folderOfFileUrl(address: string): string {
  try {
    return fileURLToPath(address);
  } catch {
    throw new StorageAddressError(`"${address}" is not a file:// address of this machine`);
  }
}

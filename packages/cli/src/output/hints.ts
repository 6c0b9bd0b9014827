import type { DataError } from '@data/core';

/**
 * The CLI's hints: what to do about an error, in its own flags, commands and settings. The
 * domain says what happened (a reason, and the facts behind it); this is the one place that
 * turns it into advice. Without a hint here, the error's own (true anywhere) is shown.
 */
export function hintOf(error: DataError): string | undefined {
  return cliHint(error) ?? error.hint;
}

function cliHint(error: DataError): string | undefined {
  if (error.reason === undefined)
    return error.kind === 'auth' && error.code === 'E_AUTH' && error.hint === undefined
      ? 'run `data login`, or set DATA_TOKEN'
      : undefined;
  switch (error.reason) {
    case 'refused':
      return 'nothing listens there: is the hub running, and is --api (or DATA_API) its address?';
    case 'unresolved':
      return 'the host name does not resolve: check --api (or DATA_API) and your DNS';
    case 'silent':
      return 'the server may be overloaded: try again, or allow more time with DATA_HTTP_TIMEOUT (seconds)';
    case 'folder-not-empty':
      return 'pass --force to write into it, or --out to choose another folder';
    case 'not-a-file':
      return 'pass --out to choose another folder';
    case 'file-differs':
      return 'pass --force to replace it, or --out to save it in another folder';
    case 'file-exists':
      return 'pass --force to replace it';
    case 'no-zip':
      return 'fetch it without --zip: `data get` writes the same folder';
    case 'publication-unfinished':
      return 'the publication may still finish: run `data info` on the dataset later';
    case 'sign-in-address':
      return "data opens only http and https addresses; tell the hub's operator, or use `data login --with-token`";
    case 'sign-in-timeout':
      return 'run `data login` again, or `data login --with-token`';
    case 'sheets-list':
      return 'give all, numbers from 1 or names, separated by commas: --sheets 1,3 or --sheets Prices,Notes';
    case 'no-such-sheet':
      return 'choose among them with --sheets, by number or name, or --sheets all';
    case 'no-workbooks':
      return 'publish without --sheets';
    case 'no-descriptor':
      return 'publish a single data file with `data publish file.csv`, or describe the folder first';
    case 'not-a-descriptor':
      return '`data validate` says what is wrong with it';
    case 'no-dataset':
      return error.signedIn === false
        ? 'check the owner and the dataset name; if it is yours and private, run `data login` first'
        : undefined;
    case 'dataset-unreadable':
      return error.signedIn === false
        ? 'check the owner and the dataset; if it is private, run `data login` first'
        : undefined;
    case 'unreadable-table':
      return '`data validate` reports it with the rest of what is wrong with the data';
    case 'hub-database':
      return 'check --database: a SQLite file in a folder you can write to, or postgres://user@host/database of a PostgreSQL that takes connections from here';
    case 'hub-storage':
      return 'choose a --storage folder you can write to';
    case 'token-change-sent':
      return 'the hub may have made the change before it stopped: `data token list` shows your tokens';
    case 'org-change-sent':
      return `the hub may have made the change before it stopped: \`data org members ${error.subject ?? 'ORG'}\` shows the organisation`;
    case 'publisher-change-sent':
      return `the hub may have made the change before it stopped: \`data publisher list ${error.subject ?? 'OWNER/DATASET'}\` shows its publishers`;
    case 'hub-sign-in':
      return 'configure one in the hub configuration (--config), or pass --dev-sign-in for a development hub';
  }
}

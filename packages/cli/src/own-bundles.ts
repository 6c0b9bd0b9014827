/**
 * The commands that have a bundle of their own, cli-<command>.cjs, which holds no other
 * command's code: a smaller script to read and a smaller cache to load. data validate
 * examples/cities took 6% fewer instructions with one (196 against 210 million, callgrind,
 * least of 3 runs; its cache 518 against 666 KB). The other commands wait on a hub or a disk
 * more than they start. scripts/bundle.ts writes these bundles and src/start.ts runs them;
 * this module imports nothing, so that the build script reads it from the sources alone.
 */
export const OWN_BUNDLE: readonly string[] = ['validate'];

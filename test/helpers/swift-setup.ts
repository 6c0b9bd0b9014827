/** Vitest global setup of the PostgreSQL and Swift project: one Swift for the whole run. */
import type { TestProject } from 'vitest/node';
import { startSwift, swiftInstalled } from './swift.js';

declare module 'vitest' {
  export interface ProvidedContext {
    swiftEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (!swiftInstalled())
    throw new Error(
      'OpenStack Swift is not installed (Debian packages swift-proxy, swift-account, swift-container, swift-object): the hub tests on S3 storage cannot run',
    );
  const swift = await startSwift();
  project.provide('swiftEndpoint', swift.endpoint);
  return () => {
    swift.stop();
  };
}

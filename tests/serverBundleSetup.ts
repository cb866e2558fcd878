import type { TestProject } from 'vitest/node';
import { buildServerBundle } from './serverBundle';

/** Builds the run's server bundle (serverBundle.ts) before the workers start, and removes it after the run. */
export default async function setup(project: TestProject): Promise<() => void> {
    const { file, remove } = await buildServerBundle();
    project.provide('serverBundle', file);
    return remove;
}

import { createContext, useContext, type ReactNode } from 'react';
import type { ResourceDefinition } from './types';

const RegistryContext = createContext<ResourceDefinition[]>([]);

/** Every definition the console was given (App's `resources`), for what spans them: the side menu. */
export function RegistryProvider({ value, children }: { value: ResourceDefinition[]; children: ReactNode }) {
    return <RegistryContext.Provider value={value}>{children}</RegistryContext.Provider>;
}

export function useRegistry(): ResourceDefinition[] {
    return useContext(RegistryContext);
}

import { createContext, useContext } from 'react';
import type { FieldDefinition, ResourceDefinition, ViewName } from './types';

const DefinitionContext = createContext<ResourceDefinition | undefined>(undefined);

export const DefinitionProvider = DefinitionContext.Provider;

/** The definition of the resource being rendered: generated views and overrides read fields, api and messages here. */
export function useDefinition(): ResourceDefinition {
    const definition = useContext(DefinitionContext);
    if (!definition) throw new Error('useDefinition() must be used inside a view built by the resource engine');
    return definition;
}

/** The same, or undefined outside the engine's views (inputs reused in a hand-written form). */
export function useOptionalDefinition(): ResourceDefinition | undefined {
    return useContext(DefinitionContext);
}

/** The react-admin resource name, which is also the route: SPEC.md's path ('product'), else the definition name. */
export function resourcePath(definition: ResourceDefinition): string {
    return definition.path ?? definition.name;
}

const pathByName = new Map<string, string>();
const definitionByName = new Map<string, ResourceDefinition>();

/** Remember each definition's route so a `reference: 'products'` finds the resource react-admin knows as 'product'. */
export function registerDefinitions(definitions: ResourceDefinition[]): void {
    for (const d of definitions) {
        pathByName.set(d.name, resourcePath(d));
        definitionByName.set(d.name, d);
        definitionByName.set(resourcePath(d), d);
    }
}

/** A registered definition by its name or path (a list or section reading another resource's fields). */
export function definitionOf(name: string | undefined): ResourceDefinition | undefined {
    return name ? definitionByName.get(name) : undefined;
}

/**
 * The definition naming a list's columns: the resource its rows belong to (`rowsOf`), else the source call's
 * resource, else the list's own. A nested list over another entity's rows never takes the enclosing one's fields.
 */
export function rowsDefinition(
    spec: { rowsOf?: string },
    sourceName: string | undefined,
    own: ResourceDefinition | undefined,
): ResourceDefinition | undefined {
    if (!spec.rowsOf) return definitionOf(sourceName) ?? own;
    const rows = definitionOf(spec.rowsOf);
    if (!rows) throw new Error(`rowsOf 指向未注册的资源 ${spec.rowsOf}`);
    return rows;
}

export function referencePath(name: string): string {
    return pathByName.get(name) ?? name;
}

/** Where a field appears: its own `views`, else everywhere, except forms for read-only or input-less fields. */
export function showsIn(field: FieldDefinition, view: ViewName): boolean {
    if (field.views) return field.views.includes(view);
    if (view === 'create' || view === 'edit') return !field.readOnly && field.input !== 'none';
    return true;
}

export function fieldsFor(definition: ResourceDefinition, view: ViewName): Array<[string, FieldDefinition]> {
    return Object.entries(definition.fields).filter(([, field]) => showsIn(field, view));
}

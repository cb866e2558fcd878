import { useMemo } from 'react';
import { Box, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { useDefinition } from './context';
import { DataList } from './list';
import { DEFAULT_PAGING, listSpecOf } from './list/fromDefinition';
import { Sections } from './page/Sections';
import type { ListOptions } from './types';
import type { Section } from './vocabulary';

/** SPEC.md §9: tables default to 10 rows with 10, 20, 30, 40 to choose from. */
export const DEFAULT_LIST: ListOptions = DEFAULT_PAGING;

/** The generated list: the definition's list options as a ListSpec, rendered by the one list component. */
export function GeneratedList() {
    const definition = useDefinition();
    const spec = useMemo(() => listSpecOf(definition), [definition]);
    // `list.tabs`: the generated list is the first of the page's tabs, the others are declared sections.
    const tabs = useMemo((): Section[] | undefined => {
        const own = definition.list?.tabs;
        if (!own) return undefined;
        return [
            {
                kind: 'tabs',
                param: own.param ?? 'tab',
                label: own.label ?? definition.label,
                tabs: [
                    { key: 'list', label: own.listLabel ?? definition.label, sections: [{ kind: 'list', list: spec }] },
                    ...own.tabs,
                ],
            },
        ];
    }, [definition, spec]);
    return (
        <Box sx={{ p: { xs: 1, md: 2 }, display: 'flex', flexDirection: 'column', gap: 2 }}>
            <Title title={definition.label} />
            <Typography variant="h6" component="h1">
                {definition.label}
            </Typography>
            {tabs ? <Sections sections={tabs} /> : <DataList spec={spec} />}
        </Box>
    );
}

import { Fragment } from 'react';
import { Box, CardContent } from '@mui/material';
import { Show } from 'react-admin';
import { fieldsFor, useDefinition } from './context';
import { renderField } from './fields';

/** The show fields as a bordered two-pairs-per-row description list (label cell, value cell). */
export function Descriptions() {
    const definition = useDefinition();
    const cell = { px: 2, py: 1.25, m: 0, borderBottom: 1, borderRight: 1, borderColor: 'divider', minWidth: 0 };
    return (
        <Box
            component="dl"
            sx={{
                display: 'grid',
                gridTemplateColumns: { xs: 'minmax(96px, auto) 1fr', md: 'repeat(2, minmax(120px, auto) 1fr)' },
                borderTop: 1,
                borderLeft: 1,
                borderColor: 'divider',
                m: 0,
            }}
        >
            {fieldsFor(definition, 'show').map(([source, field]) => (
                <Fragment key={source}>
                    <Box component="dt" sx={{ ...cell, bgcolor: 'action.hover', color: 'text.secondary' }}>
                        {field.label}
                    </Box>
                    <Box component="dd" sx={{ ...cell, wordBreak: 'break-all' }}>
                        {renderField(source, field)}
                    </Box>
                </Fragment>
            ))}
        </Box>
    );
}

export function GeneratedShow() {
    const definition = useDefinition();
    return (
        <Show title={`${definition.label}详情`}>
            <CardContent>
                <Descriptions />
            </CardContent>
        </Show>
    );
}

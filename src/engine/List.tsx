import { useState, type ReactElement } from 'react';
import AddIcon from '@mui/icons-material/Add';
import InboxIcon from '@mui/icons-material/Inbox';
import { Box, Button, Typography } from '@mui/material';
import {
    BulkDeleteButton,
    CreateButton,
    Datagrid,
    FilterButton,
    List,
    Pagination,
    SearchInput,
    SelectInput,
    TextInput,
    TopToolbar,
    useResourceDefinition,
} from 'react-admin';
import { fieldsFor, useDefinition } from './context';
import { CreateDialog } from './Form';
import { renderField } from './fields';
import { RowActions } from './RowActions';
import type { ListOptions } from './types';

/** SPEC.md §9: tables default to 10 rows with 10, 20, 30, 40 to choose from. */
export const DEFAULT_LIST: ListOptions = { perPage: 10, perPageOptions: [10, 20, 30, 40] };

function filterInputs(options: ListOptions): ReactElement[] {
    let searchPlaced = false;
    return (options.filters ?? []).map((f) => {
        const kind = f.input ?? 'text';
        if (kind === 'text' && !searchPlaced) {
            searchPlaced = true;
            return <SearchInput key={f.source} source={f.source} alwaysOn placeholder={`请输入${f.label}`} />;
        }
        if ((kind === 'select' || kind === 'radio') && f.choices) {
            return (
                <SelectInput
                    key={f.source}
                    source={f.source}
                    label={f.label}
                    choices={f.choices}
                    alwaysOn={f.alwaysOn}
                    translateChoice={false}
                    emptyText="全部"
                />
            );
        }
        return <TextInput key={f.source} source={f.source} label={f.label} alwaysOn={f.alwaysOn} />;
    });
}

interface EmptyStateProps {
    text: string;
    createLabel: string;
    onCreate?: () => void;
    createLink?: boolean;
}

function EmptyState({ text, createLabel, onCreate, createLink }: EmptyStateProps) {
    return (
        <Box sx={{ textAlign: 'center', py: 8, color: 'text.secondary', width: '100%' }}>
            <InboxIcon sx={{ fontSize: 64, opacity: 0.4 }} />
            <Typography variant="body1" sx={{ mt: 1, mb: 2 }}>
                {text}
            </Typography>
            {onCreate ? (
                <Button variant="contained" startIcon={<AddIcon />} onClick={onCreate}>
                    {createLabel}
                </Button>
            ) : createLink ? (
                <CreateButton label={createLabel} variant="contained" />
            ) : null}
        </Box>
    );
}

function ListActions({
    hasFilterButton,
    createLabel,
    onCreate,
}: {
    hasFilterButton: boolean;
    createLabel: string;
    onCreate?: () => void;
}) {
    const { hasCreate } = useResourceDefinition();
    return (
        <TopToolbar>
            {hasFilterButton ? <FilterButton /> : null}
            {onCreate ? (
                <Button variant="contained" size="small" startIcon={<AddIcon />} onClick={onCreate}>
                    {createLabel}
                </Button>
            ) : hasCreate ? (
                <CreateButton label={createLabel} variant="contained" />
            ) : null}
        </TopToolbar>
    );
}

/** The generated list: search and filters, columns from fields, the '操作' column, paging as the definition says. */
export function GeneratedList() {
    const definition = useDefinition();
    const { hasCreate } = useResourceDefinition();
    const options = definition.list ?? DEFAULT_LIST;
    const [creating, setCreating] = useState(false);

    const createLabel = options.createLabel ?? '新建';
    const openDialog = hasCreate && options.createInDialog ? () => setCreating(true) : undefined;
    const filters = filterInputs(options);
    const hasFilterButton = (options.filters ?? []).some((f, i) => i > 0 && !f.alwaysOn);
    const bulk =
        options.bulkDelete || options.bulkActions?.length ? (
            <>{options.bulkDelete ? <BulkDeleteButton mutationMode="pessimistic" /> : null}</>
        ) : (
            false
        );
    const emptyText = options.empty ?? '暂无数据';
    return (
        <>
            <List
                title={definition.label}
                perPage={options.perPage}
                sort={options.sort}
                filters={filters.length > 0 ? filters : undefined}
                actions={
                    <ListActions hasFilterButton={hasFilterButton} createLabel={createLabel} onCreate={openDialog} />
                }
                pagination={<Pagination rowsPerPageOptions={options.perPageOptions} />}
                empty={
                    <EmptyState
                        text={emptyText}
                        createLabel={createLabel}
                        onCreate={openDialog}
                        createLink={hasCreate && !openDialog}
                    />
                }
            >
                <Datagrid
                    bulkActionButtons={bulk}
                    rowClick={false}
                    empty={<EmptyState text={emptyText} createLabel={createLabel} />}
                >
                    {fieldsFor(definition, 'list').map(([source, field]) => renderField(source, field))}
                    <RowActions label="操作" />
                </Datagrid>
            </List>
            {openDialog ? <CreateDialog open={creating} onClose={() => setCreating(false)} /> : null}
        </>
    );
}

import { useState } from 'react';
import { Box, Button, FormHelperText, Stack, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import type { ParamForm } from './form';
import { dataTypeLabel, type Unit } from './model';
import { ParamDialog } from './ParamDialog';

export interface ParamListProps {
    label: string;
    addLabel?: string;
    value: ParamForm[];
    onChange: (params: ParamForm[]) => void;
    units: Unit[];
    /** Struct members: their data type cannot be a struct. */
    nested?: boolean;
    error?: string;
}

/** A list of params (event output, service input / output, struct members) edited one at a time in a dialog. */
export function ParamList({ label, addLabel = '添加参数', value, onChange, units, nested, error }: ParamListProps) {
    // null: closed; -1: adding; n: editing row n.
    const [editing, setEditing] = useState<number | null>(null);
    const others = (index: number) => value.filter((_, i) => i !== index).map((p) => p.identifier.trim());

    const save = (param: ParamForm) => {
        onChange(editing === -1 ? [...value, param] : value.map((p, i) => (i === editing ? param : p)));
        setEditing(null);
    };

    return (
        <Box>
            <Typography variant="body2" sx={{ mb: 1 }}>
                {label}
            </Typography>
            <Stack spacing={1} role="list" aria-label={label}>
                {value.map((param, index) => (
                    <Stack
                        key={index}
                        role="listitem"
                        direction="row"
                        alignItems="center"
                        spacing={1}
                        sx={{ px: 1.5, py: 0.5, bgcolor: 'action.hover', borderRadius: 1 }}
                    >
                        <Typography variant="body2" sx={{ flex: 1, minWidth: 0 }} noWrap>
                            参数名称：{param.name}（{param.identifier}）
                        </Typography>
                        <Typography variant="caption" color="text.secondary" noWrap>
                            {dataTypeLabel(param.dataType.type)}
                        </Typography>
                        <Button
                            size="small"
                            onClick={() => setEditing(index)}
                            aria-label={`编辑参数 ${param.identifier}`}
                        >
                            编辑
                        </Button>
                        <Button
                            size="small"
                            color="error"
                            onClick={() => onChange(value.filter((_, i) => i !== index))}
                            aria-label={`删除参数 ${param.identifier}`}
                        >
                            删除
                        </Button>
                    </Stack>
                ))}
            </Stack>
            <Button startIcon={<AddIcon />} size="small" onClick={() => setEditing(-1)} sx={{ mt: 0.5 }}>
                {addLabel}
            </Button>
            {error && <FormHelperText error>{error}</FormHelperText>}
            {editing !== null && (
                <ParamDialog
                    title={editing === -1 ? '添加参数' : '编辑参数'}
                    initial={editing === -1 ? undefined : value[editing]}
                    otherIdentifiers={others(editing)}
                    units={units}
                    nested={nested}
                    onClose={() => setEditing(null)}
                    onSave={save}
                />
            )}
        </Box>
    );
}

import { Button, IconButton, Stack, TextField, Tooltip } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import type { EnumItem } from './form';

export interface EnumEditorProps {
    value: EnumItem[];
    onChange: (items: EnumItem[]) => void;
}

/** Rows of 枚举值 (an integer) and 枚举描述. */
export function EnumEditor({ value, onChange }: EnumEditorProps) {
    const update = (index: number, patch: Partial<EnumItem>) =>
        onChange(value.map((item, i) => (i === index ? { ...item, ...patch } : item)));

    return (
        <Stack spacing={1.5} sx={{ pt: 0.5 }}>
            {value.map((item, index) => (
                <Stack key={index} direction="row" spacing={1} alignItems="center">
                    <TextField
                        type="number"
                        label={`枚举值 ${index + 1}`}
                        placeholder="整数，如 0"
                        value={item.value}
                        onChange={(e) => update(index, { value: e.target.value })}
                        size="small"
                        sx={{ width: 140 }}
                    />
                    <TextField
                        label={`枚举描述 ${index + 1}`}
                        placeholder="如：关"
                        value={item.text}
                        onChange={(e) => update(index, { text: e.target.value })}
                        size="small"
                        fullWidth
                    />
                    <Tooltip title="删除">
                        <IconButton
                            aria-label={`删除枚举项 ${index + 1}`}
                            onClick={() => onChange(value.filter((_, i) => i !== index))}
                            size="small"
                        >
                            <DeleteIcon fontSize="small" />
                        </IconButton>
                    </Tooltip>
                </Stack>
            ))}
            <Button
                startIcon={<AddIcon />}
                onClick={() => onChange([...value, { value: String(nextValue(value)), text: '' }])}
                sx={{ alignSelf: 'flex-start' }}
                size="small"
            >
                添加枚举项
            </Button>
        </Stack>
    );
}

function nextValue(items: EnumItem[]): number {
    const used = items.map((i) => Number(i.value)).filter((n) => Number.isInteger(n));
    return used.length ? Math.max(...used) + 1 : 0;
}

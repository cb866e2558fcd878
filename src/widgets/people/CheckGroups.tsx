import { Box, Checkbox, FormControlLabel, FormGroup, Typography } from '@mui/material';
import type { InputWidgetProps } from '../registry';

export interface CheckGroup {
    label: string;
    options: Array<{ id: string; name: string }>;
}

/**
 * Input: checkboxes in labelled rows (a role's rights per family, its menu entries per section); the value is the
 * list of ticked ids. A row's label ticks or clears the whole row.
 */
export default function CheckGroups({
    value,
    onChange,
    label,
    disabled,
    groups,
}: InputWidgetProps & { groups: CheckGroup[] }) {
    const chosen = new Set(Array.isArray(value) ? (value as string[]) : []);
    const set = (ids: string[], on: boolean) => {
        const next = new Set(chosen);
        for (const id of ids) {
            if (on) next.add(id);
            else next.delete(id);
        }
        onChange([...next]);
    };
    return (
        <Box role="group" aria-label={label}>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>
                {label}
            </Typography>
            {groups.map((group) => {
                const ids = group.options.map((o) => o.id);
                const all = ids.every((id) => chosen.has(id));
                const some = ids.some((id) => chosen.has(id));
                return (
                    <Box
                        key={group.label}
                        sx={{
                            display: 'flex',
                            alignItems: 'center',
                            flexWrap: 'nowrap',
                            borderBottom: 1,
                            borderColor: 'divider',
                        }}
                    >
                        <FormControlLabel
                            sx={{ width: 150, flexShrink: 0 }}
                            label={<Typography fontWeight={600}>{group.label}</Typography>}
                            control={
                                <Checkbox
                                    size="small"
                                    checked={all}
                                    indeterminate={some && !all}
                                    disabled={disabled}
                                    onChange={(e) => set(ids, e.target.checked)}
                                    inputProps={{ 'aria-label': `${group.label}（全部）` }}
                                />
                            }
                        />
                        <FormGroup row sx={{ flex: 1 }}>
                            {group.options.map((o) => (
                                <FormControlLabel
                                    key={o.id}
                                    label={o.name}
                                    control={
                                        <Checkbox
                                            size="small"
                                            checked={chosen.has(o.id)}
                                            disabled={disabled}
                                            onChange={(e) => set([o.id], e.target.checked)}
                                            inputProps={{ 'aria-label': `${group.label}：${o.name}` }}
                                        />
                                    }
                                />
                            ))}
                        </FormGroup>
                    </Box>
                );
            })}
        </Box>
    );
}

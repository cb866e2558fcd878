import { Box, Checkbox, FormControlLabel, FormGroup, Typography } from '@mui/material';
import { useMemo } from 'react';
import { useRegistry } from '../../engine/registry';
import { declaredRights } from '../../layout/menuModel';
import type { InputWidgetProps } from '../registry';

export interface CheckGroup {
    label: string;
    options: Array<{ id: string; name: string }>;
}

/**
 * With `declared`, the menu rights the console's definitions declare (`menu.right`, layout/menuModel.ts) join the
 * given groups: an integrator's new entry appears under its section's label (a new row when no group has that label,
 * `topLabel` for a top-level entry), named by its menu label; entries of `skipSection` (系统管理) are left out.
 */
export interface DeclaredRightsOption {
    topLabel: string;
    skipSection?: string;
}

export function withDeclaredRights(
    groups: CheckGroup[],
    declared: ReturnType<typeof declaredRights>,
    { topLabel, skipSection }: DeclaredRightsOption,
): CheckGroup[] {
    const out = groups.map((g) => ({ ...g, options: [...g.options] }));
    const offered = new Set(out.flatMap((g) => g.options.map((o) => o.id)));
    for (const d of declared) {
        if (offered.has(d.right) || (skipSection && d.sectionId === skipSection)) continue;
        offered.add(d.right);
        const label = d.section ?? topLabel;
        let group = out.find((g) => g.label === label);
        if (!group) {
            group = { label, options: [] };
            out.push(group);
        }
        group.options.push({ id: d.right, name: d.label });
    }
    return out;
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
    groups: given,
    declared,
}: InputWidgetProps & { groups: CheckGroup[]; declared?: DeclaredRightsOption }) {
    const definitions = useRegistry();
    const groups = useMemo(
        () => (declared ? withDeclaredRights(given, declaredRights(definitions), declared) : given),
        [given, declared, definitions],
    );
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

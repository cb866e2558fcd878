/**
 * dataTypeSpec: the one input widget of the thing model. A data type and its specs (int / float / double range,
 * step and unit; text length; bool names; enum rows; date; struct members; array items), or with `params` a list
 * of params (an event's output, a service's input / output). A param or struct member is edited in the engine's
 * form dialog whose 数据类型 is this widget again (nested: no struct inside a struct).
 */
import { useId, useMemo, useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import {
    Autocomplete,
    Box,
    Button,
    FormControl,
    FormControlLabel,
    FormHelperText,
    FormLabel,
    IconButton,
    MenuItem,
    Radio,
    RadioGroup,
    Stack,
    TextField,
    Tooltip,
    Typography,
} from '@mui/material';
import { useFormState } from 'react-hook-form';
import { DATA_TYPE_LABELS, DATA_TYPE_NAMES, type DataTypeName } from '../../../schemas/thingModel';
import {
    emptyDataType,
    emptyParam,
    fromParam,
    paramFormSchema,
    type DataTypeForm,
    type EnumItem,
    type ParamForm,
} from '../../components/thingModel/form';
import {
    ARRAY_ITEM_TYPES,
    DATE_NOTE,
    MEMBER_TYPES,
    NUMERIC_TYPES,
    dataTypeLabel,
    type ThingParam,
    type Unit,
} from '../../components/thingModel/model';
import { ActionForm } from '../../engine/actions';
import { useCall } from '../../engine/calls';
import { useScope } from '../../engine/scope';
import type { InputWidgetProps } from '../registry';

type Errors = { message?: string; type?: { message?: string }; specs?: { message?: string } } | undefined;

/** The unit list of the platform (摄氏度 / °C, ...), asked once. */
function useUnits(): Unit[] {
    const scope = useScope();
    const { data } = useCall<Unit[]>({ resource: 'thingFunctions', call: 'units' }, scope, { staleTime: Infinity });
    return Array.isArray(data) ? data : [];
}

/** The form errors under this input's source (the schema reports `dataType.specs`, `dataType.type`). */
function useErrors(source: string): Errors {
    const { errors } = useFormState({ name: source });
    let at: unknown = errors;
    for (const key of source.split('.'))
        at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
    return at as Errors;
}

export default function DataTypeSpec(props: InputWidgetProps) {
    const { source, value, onChange, label, params, nested } = props;
    const errors = useErrors(source);
    const units = useUnits();
    if (params) {
        return (
            <ParamList
                label={label}
                addLabel={`添加${label}`}
                value={Array.isArray(value) ? (value as ParamForm[]) : []}
                onChange={onChange}
                units={units}
                // A param's own errors were shown in its dialog; here only say the list needs a look.
                error={errors ? (errors.message ?? '请检查参数定义') : undefined}
            />
        );
    }
    const form = value && typeof value === 'object' ? (value as DataTypeForm) : emptyDataType();
    return (
        <DataTypeEditor
            value={form}
            onChange={onChange}
            units={units}
            nested={!!nested}
            typeError={errors?.type?.message ?? errors?.message}
            specsError={errors?.specs?.message}
        />
    );
}

interface DataTypeEditorProps {
    value: DataTypeForm;
    onChange: (value: DataTypeForm) => void;
    units: Unit[];
    /** A struct member: no struct, and no array of structs, inside it. */
    nested: boolean;
    typeError?: string;
    specsError?: string;
}

/** 数据类型 and the specs editor of the chosen type; its errors come from the shared dataTypeSchema. */
function DataTypeEditor({ value, onChange, units, nested, typeError, specsError }: DataTypeEditorProps) {
    const types: readonly DataTypeName[] = nested ? MEMBER_TYPES : DATA_TYPE_NAMES;
    const set = (patch: Partial<DataTypeForm>) => onChange({ ...value, ...patch });
    return (
        <Stack spacing={2} sx={{ py: 1 }}>
            <TextField
                select
                required
                label="数据类型"
                value={value.type}
                onChange={(e) => set({ type: e.target.value as DataTypeName })}
                error={!!typeError}
                helperText={typeError}
                fullWidth
                size="small"
            >
                {types.map((t) => (
                    <MenuItem key={t} value={t}>
                        {DATA_TYPE_LABELS[t]}
                    </MenuItem>
                ))}
            </TextField>
            {NUMERIC_TYPES.includes(value.type as DataTypeName) && (
                <NumberSpecEditor value={value} onChange={set} units={units} />
            )}
            {value.type === 'text' && (
                <TextField
                    required
                    type="number"
                    label="数据长度"
                    value={value.length}
                    onChange={(e) => set({ length: e.target.value })}
                    helperText="单位：字节，1~10240"
                    size="small"
                    fullWidth
                />
            )}
            {value.type === 'bool' && (
                <Stack spacing={1}>
                    <Typography variant="body2">布尔值（0 和 1 的含义）</Typography>
                    {(
                        [
                            ['0', 'boolFalse', '如：关'],
                            ['1', 'boolTrue', '如：开'],
                        ] as const
                    ).map(([n, key, hint]) => (
                        <Stack key={n} direction="row" spacing={1} alignItems="center">
                            <Typography sx={{ width: 24 }}>{n} -</Typography>
                            <TextField
                                label={`${n} 的含义`}
                                placeholder={hint}
                                value={value[key]}
                                onChange={(e) => set({ [key]: e.target.value })}
                                size="small"
                                fullWidth
                            />
                        </Stack>
                    ))}
                </Stack>
            )}
            {value.type === 'enum' && (
                <EnumEditor value={value.enumItems} onChange={(enumItems) => set({ enumItems })} />
            )}
            {value.type === 'date' && (
                <TextField
                    label="时间格式"
                    value={DATE_NOTE}
                    size="small"
                    fullWidth
                    slotProps={{ input: { readOnly: true } }}
                />
            )}
            {value.type === 'struct' && (
                <ParamList
                    label="JSON 对象（结构体参数）"
                    addLabel="添加参数"
                    value={value.members}
                    onChange={(members) => set({ members })}
                    units={units}
                    nested
                />
            )}
            {value.type === 'array' && (
                <ArraySpecEditor
                    value={value}
                    onChange={set}
                    units={units}
                    itemTypes={nested ? ARRAY_ITEM_TYPES.filter((t) => t !== 'struct') : ARRAY_ITEM_TYPES}
                />
            )}
            {specsError && <FormHelperText error>{specsError}</FormHelperText>}
        </Stack>
    );
}

const unitLabel = (u: Unit) => `${u.name} / ${u.symbol}`;

/** 取值范围, 步长 and 单位 of an int, float or double. */
function NumberSpecEditor({
    value,
    onChange,
    units,
}: {
    value: DataTypeForm;
    onChange: (patch: Partial<DataTypeForm>) => void;
    units: Unit[];
}) {
    const selected = units.find((u) => u.symbol === value.unit) ?? null;
    // A unit the list does not know (e.g. from an imported model) is still shown rather than dropped.
    const options = value.unit && !selected ? [...units, { symbol: value.unit, name: value.unit }] : units;
    return (
        <Stack spacing={2}>
            <Stack direction="row" spacing={1} alignItems="center">
                <TextField
                    required
                    type="number"
                    label="最小值"
                    value={value.min}
                    onChange={(e) => onChange({ min: e.target.value })}
                    size="small"
                    fullWidth
                />
                <Typography>~</Typography>
                <TextField
                    required
                    type="number"
                    label="最大值"
                    value={value.max}
                    onChange={(e) => onChange({ max: e.target.value })}
                    size="small"
                    fullWidth
                />
            </Stack>
            <TextField
                type="number"
                label="步长"
                value={value.step}
                onChange={(e) => onChange({ step: e.target.value })}
                size="small"
                fullWidth
            />
            <Autocomplete
                options={options}
                value={options.find((u) => u.symbol === value.unit) ?? null}
                onChange={(_, u) => onChange({ unit: u?.symbol ?? '' })}
                getOptionLabel={unitLabel}
                isOptionEqualToValue={(a, b) => a.symbol === b.symbol}
                noOptionsText="无匹配单位"
                size="small"
                renderInput={(params) => <TextField {...params} label="单位" placeholder="请选择单位" />}
            />
        </Stack>
    );
}

/** Rows of 枚举值 (an integer) and 枚举描述. */
function EnumEditor({ value, onChange }: { value: EnumItem[]; onChange: (items: EnumItem[]) => void }) {
    const update = (index: number, patch: Partial<EnumItem>) =>
        onChange(value.map((item, i) => (i === index ? { ...item, ...patch } : item)));
    const used = value.map((i) => Number(i.value)).filter((n) => Number.isInteger(n));
    const next = used.length ? Math.max(...used) + 1 : 0;
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
                onClick={() => onChange([...value, { value: String(next), text: '' }])}
                sx={{ alignSelf: 'flex-start' }}
                size="small"
            >
                添加枚举项
            </Button>
        </Stack>
    );
}

/** 元素类型 and 元素个数 of an array; an array of structs edits the struct's members too. */
function ArraySpecEditor({
    value,
    onChange,
    units,
    itemTypes,
}: {
    value: DataTypeForm;
    onChange: (patch: Partial<DataTypeForm>) => void;
    units: Unit[];
    itemTypes: DataTypeName[];
}) {
    const labelId = useId();
    return (
        <Stack spacing={2}>
            <FormControl>
                <FormLabel id={labelId} required>
                    元素类型
                </FormLabel>
                <RadioGroup
                    row
                    aria-labelledby={labelId}
                    value={value.itemType}
                    onChange={(e) => onChange({ itemType: e.target.value as DataTypeName })}
                >
                    {itemTypes.map((t) => (
                        <FormControlLabel
                            key={t}
                            value={t}
                            control={<Radio size="small" />}
                            label={DATA_TYPE_LABELS[t]}
                        />
                    ))}
                </RadioGroup>
            </FormControl>
            <TextField
                required
                type="number"
                label="元素个数"
                value={value.size}
                onChange={(e) => onChange({ size: e.target.value })}
                helperText="1~512"
                size="small"
                fullWidth
            />
            {value.itemType === 'struct' && (
                <ParamList
                    label="JSON 对象（结构体参数）"
                    addLabel="添加参数"
                    value={value.members}
                    onChange={(members) => onChange({ members })}
                    units={units}
                    nested
                />
            )}
        </Stack>
    );
}

interface ParamListProps {
    label: string;
    addLabel: string;
    value: ParamForm[];
    onChange: (params: ParamForm[]) => void;
    units: Unit[];
    /** Struct members: their data type cannot be a struct. */
    nested?: boolean;
    error?: string;
}

/** Params (event output, service input / output, struct members), each added or edited in the engine's form dialog. */
function ParamList({ label, addLabel, value, onChange, nested, error }: ParamListProps) {
    // null: closed; -1: adding; n: editing row n.
    const [editing, setEditing] = useState<number | null>(null);
    const schema = useMemo(
        () =>
            editing === null
                ? undefined
                : paramFormSchema(value.filter((_, i) => i !== editing).map((p) => String(p.identifier ?? '').trim())),
        [editing, value],
    );

    const save = async (param: ParamForm) => {
        onChange(editing === -1 ? [...value, param] : value.map((p, i) => (i === editing ? param : p)));
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
                <ActionForm
                    open
                    onClose={() => setEditing(null)}
                    title={editing === -1 ? '添加参数' : '编辑参数'}
                    fields={[
                        ['name', { label: '参数名称', required: true, maxLength: 30 }],
                        ['identifier', { label: '标识符', required: true }],
                        [
                            'dataType',
                            { label: '数据类型', input: 'widget', widget: 'dataTypeSpec', widgetProps: { nested } },
                        ],
                    ]}
                    schema={schema}
                    defaultValues={{ ...(editing === -1 ? emptyParam() : value[editing]) }}
                    // The schema hands back the platform's shape; the list keeps the form's.
                    onSubmit={(param) => save(fromParam(param as unknown as ThingParam))}
                />
            )}
        </Box>
    );
}

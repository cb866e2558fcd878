import { lazy, Suspense, useEffect, useRef } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import {
    BooleanInput,
    CheckboxGroupInput,
    NumberInput,
    PasswordInput,
    RadioButtonGroupInput,
    ReferenceInput,
    SelectInput,
    TextInput,
} from 'react-admin';
import { CascaderInput } from './Cascader';
import { useFieldChoices } from './choices';
import { referencePath } from './context';
import { fieldTypeOf, inputKindOf } from './fields';
import { fieldForMode, filteringParse, inputFilterOf, type FormMode } from './inputs/fieldView';
import { DateInput, TimeRangeInput } from './dates';
import { FileInput } from './inputs/FileInput';
import { KeyValueInput } from './inputs/KeyValueInput';
import { RowsInput } from './inputs/RowsInput';
import { PickerInput } from './inputs/PickerInput';
import { ToggleInput } from './inputs/ToggleInput';
import { TreeInput } from './inputs/TreeInput';
import { PositionInput, WidgetInput } from './inputs/WidgetInput';
import type { Choice, FieldDefinition, FormValues, InputKind } from './types';
import type { CodeLanguage } from './inputs/CodeEditor';

export { fieldForMode, type FormMode } from './inputs/fieldView';

export interface FormInputProps {
    source: string;
    field: FieldDefinition;
    /**
     * Shown with its value but not editable (e.g. the product a scoped list already chose). react-hook-form leaves a
     * disabled input out of what it submits, so the caller supplies the value (FormDialog's `locked` does). A field
     * `locked` by its definition is read-only instead, and its value is submitted.
     */
    disabled?: boolean;
    /** The form's view: the field's `perView[mode]` applies (locked in edit, another maxLength, ...). */
    mode?: FormMode;
}

/** One form input for a field: its input kind, plus the definition's visibility, label, choices and resets. */
export function FormInput({ source, field: declared, disabled, mode }: FormInputProps) {
    const field = fieldForMode(declared, mode);
    const kind = inputKindOf(field);
    if (kind === 'none') return null;
    if (
        field.visibleWhen ||
        field.formLabel ||
        field.formHelperText ||
        field.choicesFrom?.params ||
        field.choicesFrom?.keep
    ) {
        return <WatchedInput source={source} field={field} kind={kind} disabled={disabled} />;
    }
    return <FieldInput source={source} field={field} kind={kind} disabled={disabled} />;
}

/** Inputs that depend on other values re-render with the form; the rest stay out of that loop. */
function WatchedInput({ source, field, kind, disabled }: FormInputProps & { kind: InputKind }) {
    const values = useWatch() as FormValues;
    if (field.visibleWhen && !field.visibleWhen(values)) return null;
    return <FieldInput source={source} field={field} kind={kind} values={values} disabled={disabled} />;
}

interface FieldInputProps extends FormInputProps {
    kind: InputKind;
    values?: FormValues;
}

function FieldInput({ source, field, kind, values, disabled }: FieldInputProps) {
    const form = useFormContext();
    const label = field.formLabel && values ? field.formLabel(values) : field.label;
    // Locked: read-only, not disabled, so react-hook-form still submits the value.
    const readOnly = field.locked || undefined;

    // Runs after react-hook-form took the new value, so only a person's change resets the others (not a form reset).
    const onChange = field.resets
        ? () => {
              const all = form.getValues() as FormValues;
              const next = typeof field.resets === 'function' ? field.resets(all[source], all) : field.resets;
              for (const [name, value] of Object.entries(next ?? {})) {
                  form.setValue(name, value, { shouldDirty: true, shouldValidate: form.formState.isSubmitted });
              }
          }
        : undefined;

    const common = {
        source,
        label,
        isRequired: field.required,
        helperText: field.formHelperText && values ? field.formHelperText(values) : field.helperText,
        onChange,
        disabled,
        readOnly,
    };
    const filter = inputFilterOf(field);
    const text = {
        ...common,
        fullWidth: true,
        inputProps: field.maxLength ? { maxLength: field.maxLength } : undefined,
        ...(filter ? { parse: filteringParse(filter) } : {}),
    };
    // The engine's own inputs keep their value in the form whatever their state; they only grey out.
    const own = { ...common, disabled: disabled || field.locked, field };

    if (fieldTypeOf(field) === 'position' && kind === 'widget' && !field.widget) return <PositionInput {...own} />;
    switch (kind) {
        case 'text':
            return <TextInput {...text} />;
        case 'textarea':
            return <TextInput {...text} multiline minRows={field.textarea?.minRows ?? 3} />;
        case 'code':
            return <CodeInput {...text} language={field.code?.language ?? 'javascript'} />;
        case 'number':
            return <NumberInput {...common} fullWidth />;
        case 'password':
            return <PasswordInput {...text} />;
        case 'boolean':
            return <BooleanInput {...common} />;
        case 'select':
        case 'radio':
            return <ChoicesInput {...common} kind={kind} field={field} values={values} />;
        case 'toggle':
            return <ToggleInput {...own} />;
        case 'checkboxes':
            return <CheckboxesInput {...common} field={field} values={values} />;
        case 'reference':
            return (
                <ReferenceInput source={source} reference={referencePath(field.reference ?? '')} perPage={100}>
                    <SelectInput
                        {...common}
                        fullWidth
                        optionText={field.optionText ?? 'name'}
                        optionValue={field.optionValue ?? 'id'}
                    />
                </ReferenceInput>
            );
        case 'cascader':
            return <CascaderInput {...common} field={field} values={values} />;
        case 'tree':
            return <TreeInput {...own} />;
        case 'picker':
            return <PickerInput {...own} />;
        case 'keyValue':
            return <KeyValueInput {...own} />;
        case 'rows':
            return <RowsInput {...own} />;
        case 'file':
            return <FileInput {...own} />;
        case 'widget':
            return <WidgetInput {...own} />;
        case 'date':
        case 'time':
        case 'datetime':
        case 'dateRange':
            return <DateInput {...own} kind={kind} />;
        case 'timeRange':
            return <TimeRangeInput {...own} />;
        case 'none':
            return null;
    }
}

interface ChoicesInputProps {
    source: string;
    label: string;
    kind: 'select' | 'radio';
    field: FieldDefinition;
    values?: FormValues;
    isRequired?: boolean;
    helperText?: string;
    onChange?: () => void;
    disabled?: boolean;
    readOnly?: boolean;
}

const hasValue = (v: unknown) => v !== undefined && v !== null && v !== '';
const contains = (choices: Choice[], v: unknown) => choices.some((c) => String(c.id) === String(v));

function ChoicesInput({ kind, field, values, onChange, ...common }: ChoicesInputProps) {
    const { choices, isPending, key } = useFieldChoices(field, values);
    const form = useFormContext();
    const loadedKey = useRef<string | undefined>(undefined);

    // When choices are reloaded for new params, a value they no longer offer falls back to the default or empty.
    useEffect(() => {
        if (isPending || !choices) return;
        const reloaded = loadedKey.current !== undefined && loadedKey.current !== key;
        loadedKey.current = key;
        const value = form.getValues(common.source);
        if (!reloaded || !hasValue(value) || contains(choices, value)) return;
        const fallback = contains(choices, field.defaultValue) ? field.defaultValue : '';
        form.setValue(common.source, fallback, { shouldDirty: true });
        if (field.nameField) form.setValue(field.nameField, fallback === '' ? '' : nameOf(choices, fallback));
    }, [choices, isPending, key, form, common.source, field.defaultValue, field.nameField]);

    // Radios hand back strings; keep the choice's own id type (numbers stay numbers).
    const parse = (v: unknown) => choices?.find((c) => String(c.id) === String(v))?.id ?? v;

    // The name beside the code: the chosen option's text goes into `nameField` with the code.
    const changed = field.nameField
        ? () => {
              const value = form.getValues(common.source);
              form.setValue(field.nameField!, hasValue(value) ? nameOf(choices ?? [], value) : '', {
                  shouldDirty: true,
              });
              onChange?.();
          }
        : onChange;

    if (kind === 'radio') {
        return (
            <RadioButtonGroupInput
                {...common}
                onChange={changed}
                choices={choices ?? []}
                isPending={isPending}
                parse={parse}
                row={field.row ?? true}
                translateChoice={false}
            />
        );
    }
    return (
        <SelectInput
            {...common}
            onChange={changed}
            fullWidth
            choices={choices ?? []}
            isPending={isPending}
            parse={parse}
            translateChoice={false}
            emptyText={common.isRequired ? undefined : '不选择'}
        />
    );
}

/** Several of the choices, as a row of checkboxes (`input: 'checkboxes'`); the value is the chosen ids. */
function CheckboxesInput({ field, values, ...common }: Omit<ChoicesInputProps, 'kind'>) {
    const { choices, isPending } = useFieldChoices(field, values);
    if (isPending && !choices) return null;
    return <CheckboxGroupInput {...common} choices={choices ?? []} row={field.row ?? true} translateChoice={false} />;
}

const nameOf = (choices: Choice[], value: unknown) => choices.find((c) => String(c.id) === String(value))?.name ?? '';

/** The CodeMirror editor, a chunk of its own loaded on first use. */
const CodeEditor = lazy(() => import('./inputs/CodeEditor'));

/**
 * CodeMirror lays text out by measuring ranges (Range.getClientRects); a document that cannot (jsdom) keeps the
 * textarea, as does the page while the editor's chunk loads.
 */
const canMeasureText = () => typeof Range !== 'undefined' && typeof Range.prototype.getClientRects === 'function';

type CodeInputProps = Parameters<typeof TextInput>[0] & { language: CodeLanguage };

/** Program text (`code`): CodeMirror with its language's highlighting, the plain textarea until it is there. */
function CodeInput({ language, ...props }: CodeInputProps) {
    if (!canMeasureText()) return <CodeTextarea {...props} />;
    return (
        <Suspense fallback={<CodeTextarea {...props} />}>
            <CodeEditor
                source={props.source}
                label={String(props.label ?? '')}
                language={language}
                helperText={typeof props.helperText === 'string' ? props.helperText : undefined}
                isRequired={props.isRequired}
                disabled={props.disabled}
                readOnly={props.readOnly}
                onChange={props.onChange as (() => void) | undefined}
            />
        </Suspense>
    );
}

/** Program text: a monospace multi-line input that keeps what is typed (no trimming, no spell checking). */
function CodeTextarea(props: Parameters<typeof TextInput>[0]) {
    return (
        <TextInput
            {...props}
            multiline
            minRows={16}
            maxRows={32}
            slotProps={{
                htmlInput: { ...props.inputProps, spellCheck: false, autoCapitalize: 'off', autoCorrect: 'off' },
            }}
            sx={{
                '& textarea': {
                    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
                    fontSize: 13,
                    lineHeight: 1.5,
                },
            }}
        />
    );
}

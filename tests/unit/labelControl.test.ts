// @vitest-environment jsdom
import { afterEach, expect, it } from 'vitest';
import { installLabelControlLookup } from '../resources/labelControl';

/** The resource tests' lookup of a label's control (tests/resources/labelControl.ts) must answer as jsdom's walk. */

const implOf = (node: object) => {
    const symbol = Object.getOwnPropertySymbols(node).find((s) => s.description === 'impl')!;
    return (node as Record<symbol, object>)[symbol];
};
const controlGetter = () =>
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(implOf(document.createElement('label'))), 'control')!
        .get as (() => unknown) & { walk?: () => unknown };

afterEach(() => {
    document.body.innerHTML = '';
});

it('finds the control jsdom finds, from its id map where the id is unique in the document', () => {
    document.body.innerHTML = `
      <label for="name">名称</label><input id="name">
      <label for="twice">a</label><input id="twice"><select id="twice"></select>
      <label for="text">b</label><span id="text"></span>
      <label for="hidden">c</label><input id="hidden" type="hidden">
      <label for="nowhere">d</label>
      <label for="">e</label>
      <label>f <textarea></textarea></label>
      <label for="late">g</label>`;
    const late = document.createElement('button');
    late.id = 'late';
    document.body.prepend(late);
    const detached = document.createElement('div');
    detached.innerHTML = '<label for="name">h</label><input id="name">';

    expect(installLabelControlLookup()).toBe(true);
    const getter = controlGetter();
    expect(getter.walk).toBeTypeOf('function');
    const labels = [...Array.from(document.querySelectorAll('label')), detached.querySelector('label')!];
    const answers = labels.map((label) => [getter.call(implOf(label)), getter.walk!.call(implOf(label))]);
    for (const [fast, walked] of answers) expect(fast).toBe(walked);
    expect(answers.map(([fast]) => (fast ? 'found' : null))).toEqual([
        'found',
        'found',
        null,
        null,
        null,
        null,
        'found',
        'found',
        'found',
    ]);
    expect(labels[0].control).toBe(document.getElementById('name'));
    expect((document.getElementById('name') as HTMLInputElement).labels?.[0]).toBe(labels[0]);
});

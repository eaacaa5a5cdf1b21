import { leaves, presetLayout, removePane, splitPane } from '../src';

describe('layouts', () => {
  test('even_h and even_v split evenly, pane order kept', () => {
    const tree = presetLayout('even_h', [1, 2, 3])!;
    expect(leaves(tree)).toEqual([1, 2, 3]);
    expect(tree).toMatchObject({ split: 'h', ratio: 1 / 3, children: [{ surface_id: 1 }, { split: 'h', ratio: 0.5 }] });
    expect(presetLayout('even_v', [4])).toEqual({ surface_id: 4 });
  });

  test('main_vertical keeps the first pane full height on the left', () => {
    expect(presetLayout('main_vertical', [1, 2, 3])).toEqual({
      split: 'h',
      ratio: 0.5,
      children: [{ surface_id: 1 }, { split: 'v', ratio: 0.5, children: [{ surface_id: 2 }, { surface_id: 3 }] }],
    });
  });

  test('tiled is a grid of ⌈√n⌉ columns', () => {
    const tree = presetLayout('tiled', [1, 2, 3, 4, 5])!;
    expect(leaves(tree)).toEqual([1, 2, 3, 4, 5]);
    expect(tree).toMatchObject({ split: 'h', ratio: 1 / 3 }); // 3 columns
  });

  test('splitting and removing a pane keep the tree binary and whole', () => {
    let tree = presetLayout('even_h', [1, 2]);
    tree = splitPane(tree, 2, 3, 'v');
    expect(leaves(tree)).toEqual([1, 2, 3]);
    tree = removePane(tree, 2);
    expect(tree).toEqual({ split: 'h', ratio: 0.5, children: [{ surface_id: 1 }, { surface_id: 3 }] });
    expect(removePane(removePane(tree, 1), 3)).toBeNull();
  });
});

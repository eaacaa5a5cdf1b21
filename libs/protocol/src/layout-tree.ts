// The split tree's shape and its pure operations, apart from the schemas (layout.ts): a face that
// draws or names panes loads this without typebox.

/**
 * Workspace layouts (REFERENCE.md §2.3, §5.1): the named presets a spec or `workspace.create`
 * asks for, and the binary split tree serve keeps and every face draws. `h` puts the children
 * side by side, `v` stacks them; `ratio` is the first child's share.
 */
export const LAYOUT_NAMES = ['even_h', 'even_v', 'main_vertical', 'tiled'] as const;
export type LayoutName = (typeof LAYOUT_NAMES)[number];
/** The layout of a workspace or spec that names none: side by side. */
export const DEFAULT_LAYOUT: LayoutName = 'even_h';

export type LayoutNode = { split: 'h' | 'v'; ratio: number; children: LayoutNode[] } | { surface_id: number };

const leaf = (surfaceId: number): LayoutNode => ({ surface_id: surfaceId });

/** Panes side by side (h) or stacked (v), each the same size. */
function even(direction: 'h' | 'v', ids: number[]): LayoutNode {
  if (ids.length === 1) return leaf(ids[0]);
  return { split: direction, ratio: 1 / ids.length, children: [leaf(ids[0]), even(direction, ids.slice(1))] };
}

/** The tree a named layout gives these panes, in order. */
export function presetLayout(name: LayoutName, ids: number[]): LayoutNode | null {
  if (ids.length === 0) return null;
  switch (name) {
    case 'even_h':
      return even('h', ids);
    case 'even_v':
      return even('v', ids);
    case 'main_vertical':
      return ids.length === 1 ? leaf(ids[0]) : { split: 'h', ratio: 0.5, children: [leaf(ids[0]), even('v', ids.slice(1))] };
    case 'tiled': {
      // A grid of ⌈√n⌉ columns, filled column by column.
      const columns = Math.ceil(Math.sqrt(ids.length));
      const perColumn = Math.ceil(ids.length / columns);
      const stacks: LayoutNode[] = [];
      for (let i = 0; i < ids.length; i += perColumn) stacks.push(even('v', ids.slice(i, i + perColumn)));
      const row = (nodes: LayoutNode[]): LayoutNode =>
        nodes.length === 1 ? nodes[0] : { split: 'h', ratio: 1 / nodes.length, children: [nodes[0], row(nodes.slice(1))] };
      return row(stacks);
    }
  }
}

export function leaves(node: LayoutNode | null): number[] {
  if (!node) return [];
  return 'surface_id' in node ? [node.surface_id] : node.children.flatMap(leaves);
}

/** Splits the pane `target` in two: it stays first, the new pane second. */
export function splitPane(node: LayoutNode | null, target: number | null, added: number, direction: 'h' | 'v'): LayoutNode {
  if (!node) return leaf(added);
  const replace = (n: LayoutNode): LayoutNode => {
    if ('surface_id' in n) return n.surface_id === target ? { split: direction, ratio: 0.5, children: [n, leaf(added)] } : n;
    return { ...n, children: n.children.map(replace) };
  };
  const result = replace(node);
  // No such pane in the tree: the new pane takes the whole right or bottom half.
  return leaves(result).includes(added) ? result : { split: direction, ratio: 0.5, children: [node, leaf(added)] };
}

/** The tree without the pane `removed`; a split left with one child becomes that child. */
export function removePane(node: LayoutNode | null, removed: number): LayoutNode | null {
  if (!node) return null;
  if ('surface_id' in node) return node.surface_id === removed ? null : node;
  const children = node.children.map((c) => removePane(c, removed)).filter((c): c is LayoutNode => c !== null);
  if (children.length === 0) return null;
  return children.length === 1 ? children[0] : { ...node, children };
}

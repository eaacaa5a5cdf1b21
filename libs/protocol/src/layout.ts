import Type from 'typebox';
import { LAYOUT_NAMES, type LayoutName } from './layout-tree';
import { SurfaceId } from './wire';

export * from './layout-tree';

/** The layout tree's schemas (the tree itself and its operations: layout-tree.ts). */
export const LayoutNameSchema = Type.Unsafe<LayoutName>(Type.Union(LAYOUT_NAMES.map((name) => Type.Literal(name))));

export const LayoutTree = Type.Cyclic(
  {
    Node: Type.Union([
      Type.Object(
        {
          split: Type.Union([Type.Literal('h'), Type.Literal('v')]),
          ratio: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
          children: Type.Array(Type.Ref('Node'), { minItems: 2 }),
        },
        { additionalProperties: false },
      ),
      Type.Object({ surface_id: SurfaceId }, { additionalProperties: false }),
    ]),
  },
  'Node',
);

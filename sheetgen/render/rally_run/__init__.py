"""Rally Run! printables: the tiles of a set (fronts and duplex backs) and a rules summary."""

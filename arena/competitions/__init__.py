"""The competitions: what matches are played for and what their results become — tournaments,
the ladder (its schedule, its tables, the ratings and the pages' editions), challenges, the
sequential comparison and the comparisons owners ask for; the pure ``pairing`` and ``stats``
libraries they use."""

"""monostamp.Policy: a str subclass with an enum's interface, not an enum.Enum.

The package binds Policy at import, as a plain attribute (a module
__getattr__ that deferred it would keep CPython from specialising every
monostamp.X read), and importing enum costs about twice all of datetime: so
Policy is a small class of its own, with what users of an enum rely on
(members by name and by value, iteration, .name and .value, pickling to the
same member) and nothing else imported.

The members' names and values are the core's (_monostamp._POLICIES, by the
core's number): no name is written twice.  The extension's getters return
the members of _MEMBERS below, which it imports on first need.
"""
import sys

# From sys.modules, so that mypy looks for no stub of its private names.
_POLICIES = sys.modules["monostamp._monostamp"]._POLICIES

# The tables behind the class, filled once below and never changed: the
# members in the core's order, and by constant name and by value.
_MEMBERS: "tuple[Policy, ...]" = ()
_BY_NAME: "dict[str, Policy]" = {}
_BY_VALUE: "dict[str, Policy]" = {}
_NAME_OF: "dict[str, str]" = {}  # value -> constant name, for .name
# A read-only view of a dict (types.MappingProxyType, without importing types).
_mappingproxy = type(type.__dict__)


def _values():
    return ", ".join(repr(str.__str__(m)) for m in _MEMBERS)


class _PolicyType(type):
    """Policy's class: iteration, len(), Policy['NAME'] and __members__, as
    enum's EnumType gives them; members cannot be reassigned or deleted."""

    def __iter__(cls):
        return iter(_MEMBERS)

    def __reversed__(cls):
        return reversed(_MEMBERS)

    def __len__(cls):
        return len(_MEMBERS)

    def __getitem__(cls, name):
        # KeyError(name), as enum's Policy['NAME'] raises.
        return _BY_NAME[name]

    def __contains__(cls, value):
        # A member, or a value (str), as enum's `in` answers since 3.12.
        try:
            return value in _BY_VALUE
        except TypeError:  # unhashable: no policy
            return False

    @property
    def __members__(cls):
        return _mappingproxy(_BY_NAME)

    def __setattr__(cls, name, value):
        if name in _BY_NAME:
            raise AttributeError("cannot reassign member %r of Policy" % (name,))
        super().__setattr__(name, value)

    def __delattr__(cls, name):
        if name in _BY_NAME:
            raise AttributeError("cannot delete member %r of Policy" % (name,))
        super().__delattr__(name)


class Policy(str, metaclass=_PolicyType):
    """What a clock does with a reading r, given the last value it handed out;
    the values are Squeak Smalltalk's ``Time clockPolicy:`` names.

    ACCEPT_PLATFORM_TIME: r as read: may repeat, may go backwards.
    MONOTONIC_ALLOW_DUPLICATES: max(r, last): never backwards, may repeat.
    MONOTONIC_FORCE_MICROSECOND_INCREMENT: r floored to a whole microsecond,
        or the next whole microsecond after last.
    MONOTONIC_FORCE_NANOSECOND_INCREMENT: r if greater than last, else
        last + 1 ns: strictly increasing (the default).

    A str subclass with an enum's interface (isinstance(p, enum.Enum) is
    False: importing enum would cost more than all of monostamp's import).
    Policy('monotonicAllowDuplicates') looks a member up by value,
    Policy['MONOTONIC_ALLOW_DUPLICATES'] by name; str() and format() give the
    value, == and hash are the value's.
    """

    # No __dict__: a member takes no attributes of its own.
    __slots__ = ()
    # Pickles and reprs of the class name the public module.
    __module__ = "monostamp"

    def __new__(cls, value):
        # A lookup, never a new instance: enum's Policy(value).
        try:
            return _BY_VALUE[value]
        except (KeyError, TypeError):
            pass
        hint = ""
        if isinstance(value, str) and value in _BY_NAME:
            hint = " (Policy[%r] looks a member up by its name)" % (value,)
        raise ValueError("Policy(): value=%r must be one of %s%s" % (value, _values(), hint))

    def __init_subclass__(cls, **kwargs):
        # A subclass would make instances that are no member.
        raise TypeError("Policy cannot be subclassed: its members are the core's policies")

    @property
    def name(self):
        """The member's name: 'MONOTONIC_ALLOW_DUPLICATES'."""
        return _NAME_OF[self]

    @property
    def value(self):
        """The member's value, a plain str: 'monotonicAllowDuplicates'."""
        return str.__str__(self)

    def __repr__(self):
        return "<Policy.%s: %r>" % (_NAME_OF[self], str.__str__(self))

    # str() and format() are str's own: the value.  Copies and pickles are
    # the member itself, found again by its value.
    def __reduce_ex__(self, protocol):
        return Policy, (str.__str__(self),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _make_members():
    members = []
    for name, value in _POLICIES:
        # str's own constructor: Policy() only looks members up.
        member = str.__new__(Policy, value)
        members.append(member)
        _BY_NAME[name] = member
        _BY_VALUE[value] = member
        _NAME_OF[value] = name
        type.__setattr__(Policy, name, member)
    return tuple(members)


_MEMBERS = _make_members()
